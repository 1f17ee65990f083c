package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// luaNow sets now to Redis's clock in ms (TIME), so every instance agrees
// on windows and buckets whatever its own clock says; luaInstances sets
// instances to the live instances for thresholdType 0 (ARGV[1], the
// sorted set KEYS[1] scored by expiry), at least one. Both scripts begin
// with them.
const (
	luaNow = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`
	luaInstances = `local instances = 1
if ARGV[1] == '0' then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  local n = redis.call('ZCARD', KEYS[1])
  if n > 1 then instances = n end
end`
)

// windowScript is the whole cluster check, run atomically by Redis in one
// round trip (EVALSHA; go-redis falls back to EVAL on NOSCRIPT, after a
// Redis restart or SCRIPT FLUSH).
//
// KEYS[1] is the live-instance sorted set (member = instance id, score =
// expiry in ms); KEYS[2..n] are window hashes (field = bucket start in ms,
// value = calls admitted in that bucket): one for a flow rule, one per
// argument value for a hot-parameter rule.
// ARGV[1] thresholdType, ARGV[2] sampleCount, ARGV[3] bucket length (ms);
// then for window KEYS[k] its count ARGV[2k] and acquire ARGV[2k+1].
//
// Time is Redis's TIME, so every instance agrees on the buckets whatever
// its own clock says. For each window the script drops buckets older than
// the window and sums the rest; a window refuses when sum + acquire >
// threshold (Java's cluster server blocks when latestQps + acquire >
// threshold), threshold being count (thresholdType 1, global) or count ×
// live instances (thresholdType 0; at least one). Only when no window
// refuses is acquire added to each window's current bucket: all or
// nothing. A window hash expires two windows after its last admission.
// Reply: {1, 0} admitted, or {0, k} refused by the k-th window.
var windowScript = redis.NewScript(luaNow + `
local bucket = tonumber(ARGV[3])
local window = tonumber(ARGV[2]) * bucket
local start = now - (now % bucket)
local oldest = start - window + bucket
` + luaInstances + `
for k = 2, #KEYS do
  local threshold = tonumber(ARGV[2 * k]) * instances
  local acquire = tonumber(ARGV[2 * k + 1])
  local h = redis.call('HGETALL', KEYS[k])
  local sum = 0
  local stale = {}
  for i = 1, #h, 2 do
    if tonumber(h[i]) < oldest then
      stale[#stale + 1] = h[i]
    else
      sum = sum + tonumber(h[i + 1])
    end
  end
  if #stale > 0 then
    redis.call('HDEL', KEYS[k], unpack(stale))
  end
  if sum + acquire > threshold then
    return {0, k - 1}
  end
end
for k = 2, #KEYS do
  redis.call('HINCRBY', KEYS[k], start, ARGV[2 * k + 1])
  redis.call('PEXPIRE', KEYS[k], 2 * window)
end
return {1, 0}
`)

// heartbeatScript registers (or renews) an instance until Redis's now +
// ARGV[2] ms, drops expired instances, and keeps the set itself alive for
// as long as its newest registration. KEYS[2..n] are demand hashes, one
// per flow id the instance checks: it writes its own rate there
// (ARGV[k+1] for KEYS[k], thousandths of a call a second) with the same
// expiry, drops expired rates, and sums the rest. Reply: the live
// instances, Redis's now (ms), then for each demand hash the sum, the
// instances it sums, and the sum of their rates each raised to at least
// a quarter of an even share of the sum (rounded up; see luaShares).
var heartbeatScript = redis.NewScript(luaNow + luaShares + `
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('PTTL', KEYS[1]) < ttl then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
local out = {redis.call('ZCARD', KEYS[1]), now}
for k = 2, #KEYS do
  redis.call('HSET', KEYS[k], ARGV[1], (now + ttl) .. ':' .. ARGV[k + 1])
  local h = redis.call('HGETALL', KEYS[k])
  local rates = {}
  for i = 1, #h, 2 do
    local exp, rate = string.match(h[i + 1], '^(%d+):(%d+)$')
    if exp == nil or tonumber(exp) <= now then
      redis.call('HDEL', KEYS[k], h[i])
    else
      rates[#rates + 1] = tonumber(rate)
    end
  end
  redis.call('PEXPIRE', KEYS[k], ttl)
  local sum, n, floored = shares(rates)
  out[#out + 1] = sum
  out[#out + 1] = n
  out[#out + 1] = floored
end
return out
`)

// luaShares defines shares(rates): their sum, their number, and the sum
// of each raised to at least a quarter of an even share of the sum
// (minShareDivisor), rounded up. An instance's share of the fleet is its
// own rate so raised, divided by that last sum: the shares of one reply
// add up to at most one, and an idle instance still has a quarter of an
// even share.
const luaShares = `
local function shares(rates)
  local sum, n = 0, #rates
  for i = 1, n do sum = sum + rates[i] end
  local floored = 0
  if n > 0 then
    local least = sum / (4 * n)
    for i = 1, n do floored = floored + math.max(rates[i], least) end
  end
  return sum, n, math.ceil(floored)
end
`

// liveScript counts the live instances at Redis's now.
var liveScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`)

// Key layout, under Config.KeyPrefix (see the package doc):
//
//	<prefix>flow:<flowId>            hash, a flow rule's window buckets
//	<prefix>param:<flowId>:<value>   hash, one argument value's window buckets
//	<prefix>instances                sorted set, live instances
func (c *Client) windowKey(flowID int64) string {
	return c.cfg.KeyPrefix + "flow:" + strconv.FormatInt(flowID, 10)
}

// leaseKey is a flow rule's lease hash (lease.go).
func (c *Client) leaseKey(flowID int64) string {
	return c.cfg.KeyPrefix + "lease:" + strconv.FormatInt(flowID, 10)
}

// leaseKeyOf is the lease hash of a window key: <prefix>lease:param:...
// for <prefix>param:....
func (c *Client) leaseKeyOf(windowKey string) string {
	return c.cfg.KeyPrefix + "lease:" + windowKey[len(c.cfg.KeyPrefix):]
}

// maxValueKey is the longest argument value text used in a key as is;
// longer ones are replaced by their SHA-256.
const maxValueKey = 128

func (c *Client) paramKey(flowID int64, value string) string {
	if len(value) > maxValueKey {
		sum := sha256.Sum256([]byte(value))
		value = "sha256:" + hex.EncodeToString(sum[:])
	}
	return c.cfg.KeyPrefix + "param:" + strconv.FormatInt(flowID, 10) + ":" + value
}

package cluster

import (
	"strconv"

	"github.com/redis/go-redis/v9"
)

// windowScript is the whole cluster check, run atomically by Redis in one
// round trip (EVALSHA; go-redis falls back to EVAL on NOSCRIPT, after a
// Redis restart or SCRIPT FLUSH).
//
// KEYS[1] window hash of the flow id: field = bucket start (ms), value =
// calls admitted in that bucket. KEYS[2] live-instance sorted set: member =
// instance id, score = expiry (ms).
// ARGV: acquire, count, thresholdType, sampleCount, bucket length (ms).
//
// Time is Redis's TIME, so every instance agrees on the buckets whatever
// its own clock says. The script drops buckets older than the window,
// sums the rest, and admits when sum + acquire <= threshold (Java's
// cluster server blocks when latestQps + acquire > threshold), threshold
// being count (thresholdType 1, global) or count × live instances
// (thresholdType 0; at least one). Only an admitted call is added, to the
// current bucket. The hash expires two windows after its last admission.
// Reply: {admitted (1 or 0), sum after the check, threshold as a string}.
var windowScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local acquire = tonumber(ARGV[1])
local threshold = tonumber(ARGV[2])
local samples = tonumber(ARGV[4])
local bucket = tonumber(ARGV[5])
local window = samples * bucket
local start = now - (now % bucket)
local oldest = start - window + bucket
if ARGV[3] == '0' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  local n = redis.call('ZCARD', KEYS[2])
  if n < 1 then n = 1 end
  threshold = threshold * n
end
local h = redis.call('HGETALL', KEYS[1])
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
  redis.call('HDEL', KEYS[1], unpack(stale))
end
if sum + acquire > threshold then
  return {0, sum, tostring(threshold)}
end
redis.call('HINCRBY', KEYS[1], start, acquire)
redis.call('PEXPIRE', KEYS[1], 2 * window)
return {1, sum + acquire, tostring(threshold)}
`)

// heartbeatScript registers (or renews) an instance until Redis's now +
// ARGV[2] ms, drops expired instances, and keeps the set itself alive for
// as long as its newest registration.
var heartbeatScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('PTTL', KEYS[1]) < ttl then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return redis.call('ZCARD', KEYS[1])
`)

// liveScript counts the live instances at Redis's now.
var liveScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`)

// Key layout, under Config.KeyPrefix:
//
//	<prefix>flow:<flowId>   hash, the flow id's window buckets
//	<prefix>instances       sorted set, live instances
func (c *Client) windowKey(flowID int64) string {
	return c.cfg.KeyPrefix + "flow:" + strconv.FormatInt(flowID, 10)
}

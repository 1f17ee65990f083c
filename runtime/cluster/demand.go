package cluster

import (
	"math"
	"strconv"
	"sync/atomic"
	"time"
)

// demand is what one instance knows of a flow id's demand: the calls it
// was asked for (admitted or not), the rate that makes over the last
// rateWindow, and, from the last heartbeat Redis answered, the fleet's
// rate: every live instance reports its own with each heartbeat, and the
// reply sums them. Leases are sized from it (lease.go), and while Redis
// does not answer each instance checks a global count's share that its
// rate was of the fleet's (fallbackCount): kept locally, so an outage
// needs no round trip to know it.
type demand struct {
	asked atomic.Int64 // acquire of every call, since the client began
	// rate and fleet are float64 bits in calls a second: this instance's
	// last measured rate and the fleet's sum the last heartbeat answered
	// (0: no heartbeat has answered with a demand yet). part is float64
	// bits too: this instance's share of the fleet's demand in that reply
	// (see seeFleet).
	rate, fleet, part atomic.Uint64
	// The heartbeat goroutine's own (and the maker's, before it is
	// shared): where the rate's measure began.
	snapAsked int64
	snapAt    int64 // mono ns
}

// rateWindow is the shortest span a rate is measured over: heartbeats may
// come every 200 ms, where a quiet instance sees a handful of calls.
const rateWindow = time.Second

// measure updates the rate once rateWindow has passed since the last
// measure (the heartbeat goroutine calls it), and returns the rate.
func (d *demand) measure(now int64) float64 {
	if d.snapAt == 0 {
		d.snapAt, d.snapAsked = now, d.asked.Load()
		return d.perSecond()
	}
	if elapsed := now - d.snapAt; elapsed >= int64(rateWindow) {
		asked := d.asked.Load()
		d.rate.Store(math.Float64bits(float64(asked-d.snapAsked) * float64(time.Second) / float64(elapsed)))
		d.snapAt, d.snapAsked = now, asked
	}
	return d.perSecond()
}

func (d *demand) perSecond() float64 { return math.Float64frombits(d.rate.Load()) }

// seeFleet takes a heartbeat's reply: the fleet's rate summed over
// reporters instances, of which mine was this instance's report, and
// raised, the sum of the reports each raised to at least a quarter of an
// even share of the fleet's (minShareDivisor; luaShares). This instance's
// share is its own rate so raised, over raised: the shares the instances
// take from one reply add up to at most one, so the fleet's fallback
// stays within its count, and an idle instance still serves a quarter of
// an even share.
func (d *demand) seeFleet(mine, fleet float64, reporters int64, raised float64) {
	part := 1.0
	if raised > 0 && reporters > 0 {
		part = min(1, max(mine, fleet/(minShareDivisor*float64(reporters)))/raised)
	}
	d.part.Store(math.Float64bits(part))
	d.fleet.Store(math.Float64bits(fleet))
}

// share is this instance's part of the fleet's demand at the last
// heartbeat Redis answered, and whether there was one with any demand.
func (d *demand) share() (float64, bool) {
	if math.Float64frombits(d.fleet.Load()) <= 0 {
		return 0, false
	}
	return math.Float64frombits(d.part.Load()), true
}

// fleetRate is the fleet's demand (calls a second) at the last answered
// heartbeat; 0 when none was seen.
func (d *demand) fleetRate() float64 { return math.Float64frombits(d.fleet.Load()) }

// minShareDivisor bounds a share from below: an instance's demand
// counts as at least a quarter of an even share of the fleet's, so one
// that was idle when Redis last answered can still serve a caller who
// arrives during an outage. The shares of one reply still add up to one
// (seeFleet): the others' are smaller by as much.
const minShareDivisor = 4

// fallbackCount is the part of a global count this instance checks
// locally while Redis does not answer, and in the window an outage ended
// in: count × its share of the fleet's demand at the last heartbeat Redis
// answered (see seeFleet); count / live when it never saw a fleet's
// demand (an instance started during the outage, or a rule with no calls
// yet), and the whole count when it never reached Redis at all; 99% of a
// share of the fleet's (fallbackMargin).
func (c *Client) fallbackCount(d *demand, count float64) float64 {
	share, ok := d.share()
	if !ok {
		return count / float64(max(1, c.live.Load()))
	}
	if share < 1 {
		share *= fallbackMargin
	}
	return count * share
}

// fallbackMargin leaves 1% of a shared count unused while the fleet falls
// back: the instances read their shares from replies up to a heartbeat
// apart, between which the demand moves a little, so the shares they hold
// may add up to a little more than one.
const fallbackMargin = 0.99

// demandKey is a flow id's demand hash in Redis: instance id ->
// "<expiry ms>:<milli-calls a second>".
func (c *Client) demandKey(flowID int64) string {
	return c.cfg.KeyPrefix + "demand:" + strconv.FormatInt(flowID, 10)
}

// milli is a rate as the heartbeat script takes it: thousandths of a call
// a second, an integer.
func milli(rate float64) int64 { return int64(math.Round(rate * 1000)) }

// demands is the demand of every flow id this client has checked, for the
// heartbeat to report: as many as the cluster flow rules, since flow ids
// come from rules.
func (c *Client) demands() ([]int64, []*demand) {
	m := ptrMap(c.leases.Load())
	ids, ds := make([]int64, 0, len(m)), make([]*demand, 0, len(m))
	for id, ls := range m {
		ids = append(ids, id)
		ds = append(ds, &ls.demand)
	}
	return ids, ds
}

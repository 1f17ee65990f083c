package redis

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Publish sets key to data and publishes data on channel in one
// MULTI/EXEC, as Java's sentinel-datasource-redis prescribes: every
// subscriber gets the message, and an instance that reconnects later
// reads the same document from the key. It returns how many subscribers
// the message reached (on a Redis Cluster, those of one node).
func Publish(ctx context.Context, client redis.UniversalClient, key, channel string, data []byte) (receivers int64, err error) {
	var pub *redis.IntCmd
	_, err = client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, key, data, 0)
		pub = p.Publish(ctx, channel, data)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("redis:%s: %w", key, err)
	}
	return pub.Val(), nil
}

// Save writes the rules of kind in force to the source's key and channel
// (Publish), for the dashboard's rule updates:
//
//	dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: datasource.Flow, Save: src.Save})
//
// Redis has no revision to compare: the last writer wins, as in Java. What
// is written is checked to load again (datasource.EncodeChecked).
func (s *Source) Save(kind datasource.Kind) error {
	data, err := s.keep.EncodeSave(kind)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout)
	defer cancel()
	_, err = Publish(ctx, s.client, s.key, s.channel, data)
	return err
}

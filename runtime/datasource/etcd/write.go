package etcd

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// ErrConflict: the key changed since the revision a write was based on;
// nothing was written.
var ErrConflict = errors.New("the key changed since it was read")

// CompareAndPut writes data to key only if the key's mod revision is still
// rev (0: the key must be absent), in one transaction; otherwise it writes
// nothing and returns an error that matches ErrConflict and names the
// revision now in etcd. It returns the revision of the write.
func CompareAndPut(ctx context.Context, client *clientv3.Client, key string, data []byte, rev int64) (int64, error) {
	resp, err := client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
		Then(clientv3.OpPut(key, string(data))).
		Else(clientv3.OpGet(key, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return 0, fmt.Errorf("etcd:%s: %w", key, err)
	}
	if !resp.Succeeded {
		now := int64(0)
		if r := resp.Responses; len(r) > 0 {
			if kvs := r[0].GetResponseRange().GetKvs(); len(kvs) > 0 {
				now = kvs[0].ModRevision
			}
		}
		return 0, fmt.Errorf("etcd:%s: %w (read at revision %d, now at %d; nothing written: reload the rules and edit again)",
			key, ErrConflict, rev, now)
	}
	return resp.Header.Revision, nil
}

// Save writes the rules of kind in force to the source's key, if the key
// is still at the revision the source last read: two editors never
// overwrite each other silently, the second gets an error matching
// ErrConflict. Its signature is the dashboard's write-back seam:
//
//	dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: datasource.Flow, Save: src.Save})
//
// After a conflict the rules in force are this instance's edit until the
// watch brings the other writer's version, which then replaces them:
// every instance ends on what etcd holds. What is written is checked to
// load again (datasource.EncodeChecked).
func (s *Source) Save(kind datasource.Kind) error {
	data, err := s.keep.EncodeSave(kind)
	if err != nil {
		return err
	}
	rev := s.Revision()
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout)
	defer cancel()
	wrote, err := CompareAndPut(ctx, s.client, s.key, data, rev)
	if err != nil {
		return err
	}
	s.saw(wrote, wrote)
	return nil
}

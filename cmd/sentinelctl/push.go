package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/sentinelgen/sentinelgen/internal/rulecheck"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/redis"
)

// runPush is `sentinelctl rules push`: it checks a rule file exactly as
// `sentinelgen rules check` does, and publishes it to an etcd key, or to a
// Redis key and channel, only when it passes: a document that would be
// refused never reaches the fleet. What is published is the bytes checked.
func runPush(env rulecheck.Env, args []string) error {
	fs := flag.NewFlagSet("sentinelctl rules push", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	etcdAddr := fs.String("etcd", "", "etcd endpoint host:port (comma-separated for several) to put the document to")
	redisAddr := fs.String("redis", "", "Redis host:port to SET the document to and PUBLISH it on, in one MULTI")
	key := fs.String("key", "", "the etcd or Redis key the instances watch")
	channel := fs.String("channel", "", "the Redis channel the instances subscribe to (with -redis)")
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for the server")
	var check rulecheck.Flags
	check.Register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return rulecheck.UsageError{}
	}
	var problem string
	switch {
	case fs.NArg() != 1:
		problem = "name one rule file"
	case (*etcdAddr == "") == (*redisAddr == ""):
		problem = "give one of -etcd and -redis"
	case *key == "":
		problem = "-key is required"
	case *redisAddr != "" && *channel == "":
		problem = "-redis needs -channel"
	case *etcdAddr != "" && *channel != "":
		problem = "-channel is for -redis only"
	case rulecheck.KindProblem(check.Kind) != "":
		problem = rulecheck.KindProblem(check.Kind)
	}
	if problem != "" {
		fmt.Fprintln(env.Stderr, "sentinelctl rules push:", problem)
		fmt.Fprintln(env.Stderr, usage)
		return rulecheck.UsageError{}
	}

	declared, err := rulecheck.Declared(env, check)
	if err != nil {
		return err
	}
	f := rulecheck.CheckFile(rulecheck.Abs(env, fs.Arg(0)), check.Kind, declared)
	rulecheck.Print(env, f)
	rel := rulecheck.RelPath(env.Dir, f.Path)
	why := f.Failed(check.Strict)
	if f.Refused() {
		why = "it would be refused"
	}
	if why != "" {
		fmt.Fprintf(env.Stderr, "sentinelctl rules push: %s not pushed: %s\n", rel, why)
		return rulecheck.Reported{}
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var where string
	if *etcdAddr != "" {
		rev, err := putEtcd(ctx, rulecheck.SplitList(*etcdAddr), *key, f.Data, *timeout)
		if err != nil {
			return fmt.Errorf("rules push: %w", err)
		}
		where = fmt.Sprintf("etcd %s key %s, revision %d", *etcdAddr, *key, rev)
	} else {
		rdb := goredis.NewClient(&goredis.Options{Addr: *redisAddr, DialTimeout: *timeout})
		defer rdb.Close()
		n, err := redis.Publish(ctx, rdb, *key, *channel, f.Data)
		if err != nil {
			return fmt.Errorf("rules push: %w", err)
		}
		where = fmt.Sprintf("redis %s key %s, channel %s (%d subscribers)", *redisAddr, *key, *channel, n)
	}
	fmt.Fprintf(env.Stdout, "pushed %s (%s rules) to %s\n", rel, f.Kind.Name(), where)
	return nil
}

func putEtcd(ctx context.Context, endpoints []string, key string, data []byte, timeout time.Duration) (int64, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: timeout, Logger: zap.NewNop()})
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	resp, err := cli.Put(ctx, key, string(data))
	if err != nil {
		return 0, fmt.Errorf("etcd:%s: %w", key, err)
	}
	return resp.Header.Revision, nil
}

package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/sentinelgen/sentinelgen/runtime/datasource/redis"
)

const pushUsage = "usage: sentinelgen rules push (-etcd ADDR -key K | -redis ADDR -key K -channel C) [-kind name] [-timeout d] [-pkg patterns] [-also names] [-tags list] FILE"

// runRulesPush is `sentinelgen rules push`: it checks a rule file exactly
// as `rules check` does, and publishes it to an etcd key, or to a Redis
// key and channel, only when it has no error: a document that would be
// refused never reaches the fleet. What is published is the bytes checked.
func runRulesPush(env runEnv, args []string) error {
	fs := flag.NewFlagSet("sentinelgen rules push", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	etcdAddr := fs.String("etcd", "", "etcd endpoint host:port (comma-separated for several) to put the document to")
	redisAddr := fs.String("redis", "", "Redis host:port to SET the document to and PUBLISH it on, in one MULTI")
	key := fs.String("key", "", "the etcd or Redis key the instances watch")
	channel := fs.String("channel", "", "the Redis channel the instances subscribe to (with -redis)")
	kindName := fs.String("kind", "", "the document's kind: "+kindList+" (default: told by the file's name or fields)")
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for the server")
	pkgs := fs.String("pkg", "", "as rules check: package patterns whose declared resources rules must name")
	tags := fs.String("tags", "", "as rules check: build tags for loading the packages")
	also := fs.String("also", "", "as rules check: resource names declared elsewhere")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), pushUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError{}
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
	case kindProblem(*kindName) != "":
		problem = kindProblem(*kindName)
	}
	if problem != "" {
		fmt.Fprintln(env.stderr, "sentinelgen rules push:", problem)
		fmt.Fprintln(env.stderr, pushUsage)
		return usageError{}
	}
	path := fs.Arg(0)
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.dir, path)
	}

	declared, err := declaredResources(env, *pkgs, *tags, *also)
	if err != nil {
		return err
	}
	data, kind, _, problems := checkFile(path, *kindName, declared)
	if printProblems(env, problems) {
		fmt.Fprintf(env.stderr, "sentinelgen rules push: %s not pushed: it would be refused\n", relPath(env.dir, path))
		return problemsError{}
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var where string
	if *etcdAddr != "" {
		rev, err := putEtcd(ctx, splitList(*etcdAddr), *key, data, *timeout)
		if err != nil {
			return fmt.Errorf("rules push: %w", err)
		}
		where = fmt.Sprintf("etcd %s key %s, revision %d", *etcdAddr, *key, rev)
	} else {
		rdb := goredis.NewClient(&goredis.Options{Addr: *redisAddr, DialTimeout: *timeout})
		defer rdb.Close()
		n, err := redis.Publish(ctx, rdb, *key, *channel, data)
		if err != nil {
			return fmt.Errorf("rules push: %w", err)
		}
		where = fmt.Sprintf("redis %s key %s, channel %s (%d subscribers)", *redisAddr, *key, *channel, n)
	}
	fmt.Fprintf(env.stdout, "pushed %s (%s rules) to %s\n", relPath(env.dir, path), kind.Name(), where)
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

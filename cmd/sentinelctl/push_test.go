package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/rulecheck"
	"github.com/sentinelgen/sentinelgen/internal/testserver"
)

const (
	goodFlow = `[{"resource": "getOrder", "count": 10}]`
	badFlow  = `[{"resource": "getOrder", "count": -1}, {"resource": "pay", "grade": 7}]`
)

// pushEnv is a directory with rule files, as the working directory.
func pushEnv(t *testing.T, files map[string]string) rulecheck.Env {
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	return rulecheck.Env{Dir: dir}
}

// sentinelctl runs the command in env as main does.
func sentinelctl(env rulecheck.Env, args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	env.Stdout, env.Stderr = &out, &errs
	code = rulecheck.ExitCode("sentinelctl", run(env, args), &errs)
	return code, out.String(), errs.String()
}

func TestRulesPushToEtcdPublishesOnlyADocumentThatLoads(t *testing.T) {
	srv := testserver.StartEtcd(t)
	c := srv.Client(t)
	defer c.Close()
	ctx := context.Background()
	env := pushEnv(t, map[string]string{"rules/flow.json": goodFlow, "rules/bad-flow.json": badFlow})

	code, stdout, stderr := sentinelctl(env, "rules", "push", "--etcd", srv.Addr(), "--key", "/sentinel/flow", "rules/flow.json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "pushed rules/flow.json (flow rules) to etcd "+srv.Addr()+" key /sentinel/flow, revision ")
	got, err := c.Get(ctx, "/sentinel/flow")
	require.NoError(t, err)
	require.Len(t, got.Kvs, 1)
	assert.Equal(t, goodFlow, string(got.Kvs[0].Value), "the bytes checked are the bytes pushed")
	rev := got.Kvs[0].ModRevision

	code, _, pushErr := sentinelctl(env, "rules", "push", "--etcd", srv.Addr(), "--key", "/sentinel/flow", "rules/bad-flow.json")
	assert.Equal(t, 1, code)
	assert.Equal(t, `rules/bad-flow.json:1:41: rule 1 (resource "pay"): grade 7 is not one of 0 (Thread, Concurrency, FLOW_GRADE_THREAD), 1 (QPS, FLOW_GRADE_QPS)`+"\n"+
		"sentinelctl rules push: rules/bad-flow.json not pushed: it would be refused\n", pushErr,
		"the report of sentinelgen rules check")
	got, err = c.Get(ctx, "/sentinel/flow")
	require.NoError(t, err)
	assert.Equal(t, rev, got.Kvs[0].ModRevision, "nothing written")
	assert.Equal(t, goodFlow, string(got.Kvs[0].Value))
}

func TestRulesPushToRedisSetsAndPublishesOnlyADocumentThatLoads(t *testing.T) {
	srv := testserver.StartRedis(t)
	rdb := srv.Client(t)
	ctx := context.Background()
	sub := rdb.Subscribe(ctx, "rules-channel")
	defer sub.Close()
	_, err := sub.Receive(ctx) // subscribed
	require.NoError(t, err)
	env := pushEnv(t, map[string]string{
		"rules/flow.json":     goodFlow,
		"rules/bad-flow.json": badFlow,
		"rules/all.json":      `{"flow": ` + goodFlow + `, "degrade": []}`,
	})

	code, _, stderr := sentinelctl(env, "rules", "push", "--redis", srv.Addr(), "--key", "rules", "--channel", "rules-channel", "rules/bad-flow.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `rules/bad-flow.json:1:41: rule 1 (resource "pay"): grade 7 is not one of`)
	assert.Contains(t, stderr, "not pushed")
	assert.ErrorIs(t, rdb.Get(ctx, "rules").Err(), goredis.Nil, "nothing written")

	code, stdout, stderr := sentinelctl(env, "rules", "push", "--redis", srv.Addr(), "--key", "rules", "--channel", "rules-channel", "rules/all.json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "pushed rules/all.json (combined rules) to redis "+srv.Addr()+" key rules, channel rules-channel (1 subscribers)")
	msg, err := sub.ReceiveMessage(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"flow": `+goodFlow+`, "degrade": []}`, msg.Payload, "the first message is the good document: the bad one was never published")
	val, err := rdb.Get(ctx, "rules").Result()
	require.NoError(t, err)
	assert.Equal(t, msg.Payload, val)
}

func TestRulesPushKindFlagAndUnreadableFiles(t *testing.T) {
	srv := testserver.StartRedis(t)
	env := pushEnv(t, map[string]string{"rules/r.json": `[{"resource": "a", "timeWindow": 0, "count": 1}]`})
	push := func(args ...string) (int, string, string) {
		return sentinelctl(env, append([]string{"rules", "push", "-redis", srv.Addr(), "-key", "k", "-channel", "c", "-timeout", "5s"}, args...)...)
	}
	// Detected as degrade (timeWindow), where timeWindow 0 is refused.
	code, _, stderr := push("rules/r.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "timeWindow")
	// As a flow document, the same rule loads.
	code, stdout, stderr := push("-kind", "flow", "rules/r.json")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "(flow rules)")

	code, _, stderr = push("rules/missing.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "rules/missing.json: file is missing")
}

func TestRulesPushServerDown(t *testing.T) {
	srv := testserver.StartRedis(t)
	addr := srv.Addr()
	srv.Kill()
	env := pushEnv(t, map[string]string{"flow.json": goodFlow})
	start := time.Now()
	code, _, stderr := sentinelctl(env, "rules", "push", "-redis", addr, "-key", "k", "-channel", "c", "-timeout", "2s", "flow.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "rules push: redis:k:")
	assert.Less(t, time.Since(start), time.Minute)
}

func TestRulesPushUsage(t *testing.T) {
	for _, args := range [][]string{
		{"flow.json"},
		{"-etcd", "a:1", "flow.json"},
		{"-etcd", "a:1", "-redis", "b:2", "-key", "k", "flow.json"},
		{"-redis", "b:2", "-key", "k", "flow.json"},
		{"-etcd", "a:1", "-key", "k", "-channel", "c", "flow.json"},
		{"-etcd", "a:1", "-key", "k", "-kind", "flwo", "flow.json"},
		{"-etcd", "a:1", "-key", "k"},
		{"-etcd", "a:1", "-key", "k", "a.json", "b.json"},
		{"-nope"},
	} {
		code, _, stderr := sentinelctl(rulecheck.Env{Dir: t.TempDir()}, append([]string{"rules", "push"}, args...)...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Contains(t, stderr, "usage: sentinelctl rules push", "%q", args)
	}
}

// A push fails as the check fails, with -strict on a warning too (a rule
// that blocks every call): nothing reaches the fleet.
func TestRulesPushPublishesNothingTheCheckFails(t *testing.T) {
	srv := testserver.StartRedis(t)
	rdb := srv.Client(t)
	env := pushEnv(t, map[string]string{"rules/flow.json": `[{"resource": "getOrder", "count": 0}]`})
	push := func(args ...string) (int, string, string) {
		return sentinelctl(env, append([]string{"rules", "push", "-redis", srv.Addr(), "-key", "k", "-channel", "c"}, args...)...)
	}
	code, stdout, stderr := push("-strict", "rules/flow.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "count is 0: the rule blocks every call")
	assert.Equal(t, "sentinelctl rules push: rules/flow.json not pushed: 1 warning, and -strict fails on warnings\n", stderr)
	assert.ErrorIs(t, rdb.Get(context.Background(), "k").Err(), goredis.Nil, "nothing written")
	code, _, stderr = push("rules/flow.json")
	assert.Equal(t, 0, code, stderr, "without -strict the warning lets it through")
}

func TestUsageNamesTheCommand(t *testing.T) {
	for _, args := range [][]string{nil, {"rules"}, {"push"}, {"-h"}} {
		code, _, stderr := sentinelctl(rulecheck.Env{Dir: t.TempDir()}, args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Contains(t, stderr, "usage: sentinelctl rules push", "%q", args)
	}
}

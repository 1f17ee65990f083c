#!/usr/bin/env bash
# Prints the runtime's and its adapters' benchmarks side by side with the
# allocation floor and, given a checkout of alibaba/sentinel-golang, with
# sentinel-golang and its adapters, all in one test binary (bench/compare):
#
#	SENTINEL_GOLANG=path/to/sentinel-golang bash bench/compare.sh
#
# Without SENTINEL_GOLANG only our cases, the frameworks bare and the floor
# are run. COUNT (default 6) and BENCHTIME (default 200ms) set the runs;
# BENCH (default .) picks the benchmarks. The raw output is kept in
# $OUT (default bench-compare.txt in the current directory), and benchstat
# prints medians with one column per implementation (-col /impl).
#
# sentinel-golang reaches the comparison module only in a temporary copy,
# never the repository's go.mod: users of sentinelgen never get it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${OUT:-bench-compare.txt}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cp -r "$root/bench/compare/." "$work/"
cd "$work"
# The copy lives elsewhere: its replace lines point at this repository.
go mod edit \
	-replace "github.com/sentinelgen/sentinelgen=$root" \
	-replace "github.com/sentinelgen/sentinelgen/adapters/echo=$root/adapters/echo" \
	-replace "github.com/sentinelgen/sentinelgen/adapters/gin=$root/adapters/gin"
tags=""
if [ -n "${SENTINEL_GOLANG:-}" ]; then
	sg=$(cd "$SENTINEL_GOLANG" && pwd)
	edits=(-require github.com/alibaba/sentinel-golang@v1.0.4 -replace "github.com/alibaba/sentinel-golang=$sg")
	for a in gin echo grpc; do
		edits+=(-require "github.com/alibaba/sentinel-golang/pkg/adapters/$a@v1.0.0"
			-replace "github.com/alibaba/sentinel-golang/pkg/adapters/$a=$sg/pkg/adapters/$a")
	done
	go mod edit "${edits[@]}"
	tags=sentinelgolang
	echo "comparing with sentinel-golang at $sg ($(git -C "$sg" log -1 --format=%h 2>/dev/null || echo 'no git'))" >&2
else
	echo "SENTINEL_GOLANG unset: ours, the frameworks bare and the floor only" >&2
fi
GOWORK=off GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>&1 || true

GOWORK=off GOFLAGS=-mod=mod go test -tags "$tags" -run '^$' -bench "${BENCH:-.}" -benchmem \
	-count "${COUNT:-6}" -benchtime "${BENCHTIME:-200ms}" . >"$out"
echo "raw output: $out" >&2
cd "$root"
go run golang.org/x/perf/cmd/benchstat@latest -col '/impl@(ours theirs bare floor)' "$out"

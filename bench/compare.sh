#!/usr/bin/env bash
# Prints our runtime's and adapters' benchmarks side by side with the
# allocation floor, each framework with a middleware that does nothing
# ("bare") and, given a checkout of alibaba/sentinel-golang, with
# sentinel-golang and its adapter for the same framework:
#
#	git clone https://github.com/alibaba/sentinel-golang /tmp/sentinel-golang
#	SENTINEL_GOLANG=/tmp/sentinel-golang bash bench/compare.sh
#
# Without SENTINEL_GOLANG only ours (Entry and Enter), the frameworks bare and the floor run.
#
# Knobs: COUNT (default 6) runs of each case, BENCHTIME (default 200ms)
# each; BENCH (default .), a go test -bench pattern (a test binary whose
# benchmarks it cannot match is not even built: BENCH='Core|Kitex');
# OUT (default bench-compare.txt in the current directory) keeps the raw
# output. CHECK=1 instead vets each test binary's module and runs its
# tests and every benchmark once, with the race detector: a quick check
# that all of it builds and each case admits and refuses as it says.
#
# Test binaries: bench/compare's own (the floor, the core, 6,000
# resources, gin, echo, chi, gorilla/mux, net/http and the gRPC
# interceptor), then one per framework in bench/compare/testdata/frameworks
# (fiber, go-zero, GoFrame, Hertz, Iris, Kitex, Kratos), each built in a
# temporary module that requires only our adapter for that framework (so
# the framework, and everything under it, at the versions adapters/<name>/
# go.mod gives its users) and, with SENTINEL_GOLANG, sentinel-golang's
# adapter for it. sentinel-golang reaches only temporary copies, never a
# go.mod of the repository: users of sentinelgen never get it. Each
# binary's framework versions are printed first.
#
# Then benchstat prints the medians with one column per implementation
# (-col /impl), and bench/compare/table the medians in CPU time per op,
# what each adapter adds over bare and the ratios, as a Markdown table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${OUT:-bench-compare.txt}")
bench=${BENCH:-.}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GOWORK=off GOFLAGS=-mod=mod

# Files the framework binaries share with bench/compare's own.
shared="main_test.go protector_test.go harness_test.go ours_test.go sentinelgolang_test.go"
# Our adapter module for each framework binary, and sentinel-golang's
# adapter package (pkg/adapters/<dir>) for it.
frameworks="fiber:fiber gozero:go-zero goframe:goframe hertz:hertz iris:iris kitex:kitex kratos:kratos"

sg=""
tags=""
if [ -n "${SENTINEL_GOLANG:-}" ]; then
	sg=$(cd "$SENTINEL_GOLANG" && pwd)
	tags=sentinelgolang
	echo "comparing with sentinel-golang at $sg ($(git -C "$sg" log -1 --format=%h 2>/dev/null || echo 'no git'))" >&2
else
	echo "SENTINEL_GOLANG unset: ours, the frameworks bare and the floor only" >&2
fi

# wanted reports whether BENCH can match one of the files' benchmarks.
wanted() {
	local top=${bench%%/*}
	grep -ho '^func Benchmark[A-Za-z0-9_]*' "$@" | sed 's/^func //' | grep -qE -- "$top"
}

# with_sentinel_golang adds sentinel-golang and its adapters $@ (their
# directories under pkg/adapters) to the module in the current directory.
with_sentinel_golang() {
	local edits=(-require github.com/alibaba/sentinel-golang@v1.0.4 -replace "github.com/alibaba/sentinel-golang=$sg")
	for a in "$@"; do
		edits+=(-require "github.com/alibaba/sentinel-golang/pkg/adapters/$a@v1.0.0"
			-replace "github.com/alibaba/sentinel-golang/pkg/adapters/$a=$sg/pkg/adapters/$a")
	done
	go mod edit "${edits[@]}"
}

# run_bench tidies the module in the current directory, prints the
# versions of the modules $@ and appends its benchmarks' output to $out
# (or, with CHECK, vets it and runs its tests and benchmarks once).
run_bench() {
	go mod tidy -e >/dev/null 2>&1 || true
	for m in "$@"; do
		echo "  $(go list -m -f '{{.Path}} {{.Version}}{{with .Replace}} => {{.Path}}{{end}}' "$m")" >&2
	done
	if [ -n "${CHECK:-}" ]; then
		go vet -tags "$tags" ./...
		go test -tags "$tags" -race -count=1 -bench "$bench" -benchtime 1x ./...
		return
	fi
	nice go test -tags "$tags" -run '^$' -bench "$bench" -benchmem \
		-count "${COUNT:-6}" -benchtime "${BENCHTIME:-200ms}" . >>"$out" || {
		echo "benchmarks failed in $PWD; output in $out" >&2
		exit 1
	}
}

: >"$out"

# bench/compare's own binary.
if wanted "$root"/bench/compare/*_test.go; then
	mkdir "$work/compare"
	cp "$root"/bench/compare/*.go "$root"/bench/compare/go.mod "$root"/bench/compare/go.sum "$work/compare/"
	cd "$work/compare"
	# The copy lives elsewhere: its replace lines point at this repository.
	sed -i "s#=> \.\./\.\.#=> $root#" go.mod
	[ -z "$sg" ] || with_sentinel_golang gin echo grpc
	echo "bench/compare:" >&2
	run_bench github.com/gin-gonic/gin github.com/labstack/echo/v4 github.com/go-chi/chi/v5 \
		github.com/gorilla/mux google.golang.org/grpc
fi

# One binary per framework.
for fw in $frameworks; do
	name=${fw%%:*} sgdir=${fw#*:}
	files=("$root/bench/compare/testdata/frameworks/${name}"_*test.go)
	wanted "${files[@]}" || continue
	mkdir "$work/$name"
	cd "$work/$name"
	cat >go.mod <<-EOF
		module github.com/sentinelgen/sentinelgen/bench/compare/$name

		go 1.26.0

		require (
			github.com/sentinelgen/sentinelgen v0.0.0
			github.com/sentinelgen/sentinelgen/adapters/$name v0.0.0
		)

		replace (
			github.com/sentinelgen/sentinelgen => $root
			github.com/sentinelgen/sentinelgen/adapters/$name => $root/adapters/$name
		)
	EOF
	cp "$root/adapters/$name/go.sum" .
	for f in $shared; do cp "$root/bench/compare/$f" .; done
	cp "${files[@]}" .
	[ -z "$sg" ] || with_sentinel_golang "$sgdir"
	# The framework's module: the first the adapter's go.mod requires.
	framework=$(sed -n '/^require/,/^)/p' "$root/adapters/$name/go.mod" |
		awk '$1 !~ /sentinelgen|testify|^require|^\)/ {print $1; exit}')
	echo "$name:" >&2
	run_bench "$framework"
done

[ -z "${CHECK:-}" ] || exit 0
echo "raw output: $out" >&2
cd "$root/bench/compare"
go run golang.org/x/perf/cmd/benchstat@latest -col '/impl@(bare enter ours theirs floor)' "$out"
echo
go run ./table "$out"

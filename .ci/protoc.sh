#!/usr/bin/env bash
# Installs Debian's protobuf-compiler (protoc) for the check that the
# example's generated gRPC code matches its .proto
# (examples/orderservice/orderspb), unless it is already there, and prints
# its version. The protoc plugins are not installed: go.mod pins them as
# tools and the check builds them with `go tool`. Idempotent; run as root
# (CI machines are). .ci/test calls it before the tests.
set -euo pipefail

if ! command -v protoc >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends protobuf-compiler >/dev/null
fi
protoc --version

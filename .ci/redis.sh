#!/usr/bin/env bash
# Installs Debian's redis-server and redis-cli for the cluster flow-control
# tests (runtime/cluster), unless they are already there, and prints their
# versions.
# The tests start and kill their own redis-server processes on free
# loopback ports; this script starts no service. Idempotent; run as root
# (CI machines are). .ci/run calls it before the tests.
set -euo pipefail

if ! command -v redis-server >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# policy-rc.d 101 keeps the package's postinst from starting a service.
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		trap 'rm -f /usr/sbin/policy-rc.d' EXIT
	fi
	apt-get install -y -qq --no-install-recommends redis-server >/dev/null
fi
# redis-cli (Debian's redis-tools, a dependency of redis-server) creates
# the tests' Redis Cluster; redis-server --sentinel runs their Sentinel.
if ! command -v redis-cli >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends redis-tools >/dev/null
fi
redis-server --version
redis-cli --version

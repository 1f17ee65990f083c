#!/usr/bin/env bash
# Installs Debian's etcd-server for the etcd rule source's tests
# (runtime/datasource/etcd, cmd/sentinelctl's rules push), unless etcd is
# already there, and prints its version. The tests start and kill their own
# etcd processes on free loopback ports, each in a temporary data directory;
# this script starts no service. Idempotent; run as root (CI machines are).
# .ci/test calls it before the tests.
set -euo pipefail

if ! command -v etcd >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# policy-rc.d 101 keeps the package's postinst from starting a service.
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		trap 'rm -f /usr/sbin/policy-rc.d' EXIT
	fi
	apt-get install -y -qq --no-install-recommends etcd-server >/dev/null
fi
etcd --version

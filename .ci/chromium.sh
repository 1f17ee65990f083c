#!/usr/bin/env bash
# Installs Debian's chromium for the dashboard's headless-browser test
# (runtime/dashboard), unless it is already there, and prints its version.
# Idempotent; run as root (CI machines are). .ci/run calls it before the tests.
set -euo pipefail

if ! command -v chromium >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
chromium --version

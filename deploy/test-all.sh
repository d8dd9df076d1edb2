#!/usr/bin/env bash
# Installs what the tests need and runs every test: the README's test command
# (`npm run test:all`) and CI's (.ci/run) are this script.
#
#   1. Debian packages the tests need: mariadb-server (the MySQL task store),
#      zookeeper (the coordinator), kcat (librdkafka's mock Kafka cluster),
#      redis-server (the peer baseline's test starts a private one),
#      chromium (the console's browser tests drive it headless through
#      playwright-core; no browser is ever downloaded), iproute2, nftables and
#      cgroup-tools (cgroup/test: the bandwidth classes shaped for real in network
#      namespaces: tc, nft, cgexec), prometheus (only for promtool: every /metrics must
#      pass `promtool check metrics`; on a systemd host the package also starts a
#      Prometheus server on :9090, which no test uses); installed only when
#      missing. The servers themselves are started on 127.0.0.1 by jest's global setup (jest.global-setup.js) and stopped after.
#   2. npm install: the locked dependencies (see below for why not npm ci).
#   3. build (tsc -b, strict, project references; the console's vite build), type-check of the tests
#      (jest only transpiles them) and lint (import cycles,
#      deep imports, core purity).
#   4. jest, every package; a last line "N passed, N failed" sums it up.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Debian packages"
missing=()
for pkg in mariadb-server zookeeper kcat redis-server chromium iproute2 nftables cgroup-tools prometheus; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "installed: mariadb-server zookeeper kcat redis-server chromium iproute2 nftables cgroup-tools prometheus"
fi

echo "== npm install (from the lock file)"
# npm install, not npm ci: the registry mirror here serves only the Linux builds of packages
# with per-platform optional dependencies (swc, unrs-resolver), so their other platforms are
# missing from the lock file and npm ci refuses it as out of sync. npm install keeps the
# locked versions of everything that is in the lock.
npm install --no-audit --no-fund

echo "== build and lint"
npm run --silent lint

echo "== tests"
results=$(mktemp)
status=0
npx jest --ci --json --outputFile="$results" || status=$?
node -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$results" || true
rm -f "$results"
exit "$status"

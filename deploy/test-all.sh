#!/usr/bin/env bash
# Installs what the tests need and runs every test: the README's test command
# (`npm run test:all`) and CI's (.ci/run) are this script.
#
#   1. Debian packages the tests need: mariadb-server (the MySQL task store),
#      zookeeper (the coordinator), kcat (librdkafka's mock Kafka cluster),
#      redis-server (the peer baseline's test starts a private one),
#      chromium (the console's browser tests drive it headless through
#      playwright-core; no browser is ever downloaded), iproute2, nftables and
#      socat (the multi-host test bed relays the servers into its namespaces, docs/multi-host.md),
#      cgroup-tools (cgroup/test: the bandwidth classes shaped for real in network
#      namespaces: tc, nft, cgexec), prometheus (only for promtool: every /metrics must
#      pass `promtool check metrics`; on a systemd host the package also starts a
#      Prometheus server on :9090, which no test uses); installed only when
#      missing. The servers themselves are started on 127.0.0.1 by jest's global setup (jest.global-setup.js) and stopped after.
#   2. npm ci: exactly the locked dependencies, node_modules laid anew.
#   3. build (tsc -b, strict, project references; the console's vite build), type-check of the tests
#      (jest only transpiles them) and lint (import cycles,
#      deep imports, core purity; ESLint's type-aware rules; Prettier's check).
#   4. jest, every package, with coverage (a package below its floor in jest.config.js
#      fails the run); the twenty slowest suites, the whole time in suites and how busy the CPUs were, and a last line "N passed, N failed" sum it up.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Debian packages"
missing=()
for pkg in mariadb-server zookeeper kcat redis-server chromium iproute2 nftables cgroup-tools prometheus socat; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "installed: mariadb-server zookeeper kcat redis-server chromium iproute2 nftables cgroup-tools prometheus socat"
fi

echo "== npm ci (from the lock file), at ${SECONDS} s"
# npm ci, not npm install: it installs exactly what package-lock.json says and fails if the
# lock and package.json disagree, so a run never tests dependencies nobody committed. The lock
# lists every platform's build of the packages with per-platform optional dependencies
# (msgpackr-extract, unrs-resolver), which npm ci needs to accept it.
npm ci --no-audit --no-fund

echo "== build and lint, at ${SECONDS} s"
npm run --silent lint

echo "== tests, at ${SECONDS} s"
results=$(mktemp)
status=0
# The machine's CPU time over the run (/proc/stat: user+nice+system+irq+softirq, and idle+iowait), printed
# after it: a run whose CPUs were mostly busy gains nothing from more workers, one that mostly waited would.
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat; }
read -r busy_before idle_before < <(cpu_ticks)
started=$SECONDS
# --coverage: jest.config.js sets the floors a run must not drop below.
npx jest --ci --coverage --json --outputFile="$results" || status=$?
read -r busy_after idle_after < <(cpu_ticks)
# The slowest suites first (where a long run's time went), then the one-line sum.
node -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const seconds = (t) => (t.endTime - t.startTime) / 1000;
  const slowest = r.testResults.slice().sort((a, b) => seconds(b) - seconds(a)).slice(0, 20);
  console.log("slowest suites:");
  for (const t of slowest) console.log(`  ${seconds(t).toFixed(0).padStart(5)} s  ${require("node:path").relative(process.cwd(), t.name)}`);
  const [wall, busy, idle] = process.argv.slice(2).map(Number);
  const suiteSeconds = r.testResults.reduce((sum, t) => sum + seconds(t), 0);
  console.log(`jest: ${wall} s, suites ${suiteSeconds.toFixed(0)} s in all, CPUs ${(100 * busy / (busy + idle)).toFixed(0)}% busy`);
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$results" "$((SECONDS - started))" "$((busy_after - busy_before))" "$((idle_after - idle_before))" || true
rm -f "$results"
exit "$status"

#!/usr/bin/env bash
# Rolling upgrade of a running local cluster (deploy/local-cluster.sh): every
# process in turn is drained through its management endpoint (`herald admin
# drain`: it stops taking work, hands off or finishes what it has, leaves the
# cluster and exits) and started again on the code now in the checkout, then
# the next one waits until it is back (management endpoint answering; APTA
# members WORKING again). Broadcasts keep running throughout and nothing is
# lost (packages/production/test/rolling-upgrade.test.ts).
#
#   git pull && npm run build         # the new version, built; running processes keep the old one
#   deploy/rolling-upgrade.sh         # roll every process onto it
#   deploy/rolling-upgrade.sh executor-1 scheduler-2   # only these, in this order
#
# The order keeps every tier served: controllers (a standby takes the relay),
# the presence agent, executors, dispatchers, schedulers (each hands its tasks
# to the others through APTA before it exits), interfaces last (one at a time,
# so the other serves the API). Same variables as local-cluster.sh
# (HERALD_CLUSTER_DIR, ...); the management token is local-cluster.sh's
# $dir/management-token unless $HERALD_MANAGEMENT_TOKEN_FILE names another. A process that does not come back in
# $HERALD_UPGRADE_WAIT_S (120) seconds stops the upgrade with its log's tail.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
herald="node $root/packages/cli/dist/main.js"
cluster="$root/deploy/local-cluster.sh"
config=$("$cluster" config)
dir=$(dirname "$config")
wait_s=${HERALD_UPGRADE_WAIT_S:-120}
# herald admin reads the cluster's management token from this file (never from the command line, which ps shows).
export HERALD_MANAGEMENT_TOKEN_FILE=${HERALD_MANAGEMENT_TOKEN_FILE:-$dir/management-token}

ORDER="controller-1 controller-2 presence-1 executor-1 executor-2 dispatcher-1 dispatcher-2 scheduler-1 scheduler-2 scheduler-3 interface-1 interface-2"
[ $# -gt 0 ] && ORDER="$*"
[ -f "$config" ] || { echo "rolling-upgrade: no cluster config at $config (deploy/local-cluster.sh start first)" >&2; exit 2; }

# Back when its management endpoint answers and, for an APTA member, its state is WORKING. What the last
# check printed (the status, or why it failed) stays in $last_check for the message when it never is.
last_check=""
back() {
  last_check=$($herald admin status "$1" --config "$config" 2>&1) || return 1
  case $1 in
    controller-*|presence-*) return 0 ;;
    *) echo "$last_check" | grep -q '"state": "WORKING"' ;;
  esac
}

for id in $ORDER; do
  started=$(date +%s)
  echo "rolling-upgrade: draining $id"
  $herald admin drain "$id" --config "$config" --timeout $((wait_s * 1000)) | sed 's/^/  /'
  "$cluster" start-one "$id" | sed 's/^/  /'
  # A deadline by the clock, not a count of checks: each check starts a node process, slow on a busy host.
  deadline=$(( $(date +%s) + wait_s ))
  until back "$id"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "rolling-upgrade: $id did not come back in ${wait_s}s; stopping the upgrade" >&2
      echo "last check of $id:" >&2
      echo "$last_check" | head -40 | sed 's/^/  /' >&2
      echo "last lines of its log:" >&2
      tail -20 "$dir/logs/$id.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "rolling-upgrade: $id back in $(( $(date +%s) - started ))s"
done
echo "rolling-upgrade: done ($(echo $ORDER | wc -w) processes)"

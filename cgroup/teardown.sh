#!/usr/bin/env bash
# Removes what setup.sh created: the htb qdisc (with its classes and tc filter), the nftables
# table, the kinds' cgroups (empty ones only: the kernel refuses to remove a cgroup with
# processes in it) and, with --unmount, the net_cls mount. Takes setup.sh's options.
# A step whose object is already gone is skipped with a note on stderr, so teardown can
# be run again after a partial setup.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prepare_device_script "$@"

# Runs a step; when it fails (already gone), says so and goes on.
step() {
  "$@" || echo "${0##*/}: skipped (already gone?): $(quote "${@:2}")" >&2
}

step run_net tc qdisc del dev "$dev" root
[ "$classifier" = tc ] || step run_net nft delete table inet "$table"
for kind in $(kinds); do
  step run rmdir "$(cgroup_dir "$kind")"
done
if [ "$mode" = v1 ]; then
  step run rmdir "$cgroup_mount/net_cls/$group"
  [ "$unmount" = 0 ] || step run umount "$cgroup_mount/net_cls"
else
  step run rmdir "$v2_mount/$group"
fi

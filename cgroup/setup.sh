#!/usr/bin/env bash
# Creates Herald's bandwidth classes on one device (cgroup/README.md):
#   - per traffic kind in the class file, a cgroup: net_cls with its classid (cgroup v1),
#     or a plain cgroup2 directory (v2, which has no net_cls);
#   - an htb qdisc on the device: the link class, one class per kind, the default class;
#   - the classifier that sends a cgroup's packets to its htb class:
#       v1 + tc:  tc's cgroup filter (cls_cgroup reads the socket's net_cls classid);
#       v1 + nft: nftables `meta cgroup <classid>` -> `meta priority set <classid>`
#                 (for kernels built without cls_cgroup; htb takes skb->priority as a classid);
#       v2:       nftables `socket cgroupv2 level N "<path>"` -> `meta priority set <classid>`.
#
# usage: setup.sh --dev DEV [--config FILE] [--mode v1|v2|auto] [--classifier tc|nft|auto]
#                 [--netns NS] [--group NAME] [--table NAME] [--cgroup-mount PATH]
#                 [--v2-mount PATH] [--dry-run]
# --dry-run prints the commands, one a line, instead of running them.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

prepare_device_script "$@"

# The cgroups. A cgroup directory that exists is kept (its processes stay in it).
if [ "$mode" = v1 ]; then
  net_cls_mount="$cgroup_mount/net_cls"
  if [ "$dry_run" = 1 ] || ! mountpoint -q "$net_cls_mount"; then
    run mkdir -p "$net_cls_mount"
    run mount -t cgroup -o net_cls net_cls "$net_cls_mount"
  fi
fi
for kind in $(kinds); do
  i=$(class_index "$kind")
  dir=$(cgroup_dir "$kind")
  run mkdir -p "$dir"
  [ "$mode" = v2 ] || write_value "$(net_cls_classid "${class_ids[$i]}")" "$dir/net_cls.classid"
done

# The htb tree: link class under the root, every other class under the link class.
link=$(class_index link)
other=$(class_index other)
run_net tc qdisc add dev "$dev" root handle 1: htb default "${class_ids[$other]#1:}"
run_net tc class add dev "$dev" parent 1: classid "${class_ids[$link]}" htb rate "${class_rates[$link]}" ceil "${class_ceils[$link]}"
for i in "${!class_names[@]}"; do
  [ "$i" != "$link" ] || continue
  run_net tc class add dev "$dev" parent "${class_ids[$link]}" classid "${class_ids[$i]}" htb rate "${class_rates[$i]}" ceil "${class_ceils[$i]}"
done

# The classifier.
if [ "$classifier" = tc ]; then
  run_net tc filter add dev "$dev" parent 1: protocol all prio 10 handle 1: cgroup
else
  run_net nft add table inet "$table"
  run_net nft add chain inet "$table" output '{ type filter hook output priority 0; policy accept; }'
  for kind in $(kinds); do
    i=$(class_index "$kind")
    if [ "$mode" = v1 ]; then
      run_net nft add rule inet "$table" output oifname "$dev" meta cgroup "$(net_cls_classid "${class_ids[$i]}")" meta priority set "${class_ids[$i]}"
    else
      run_net nft add rule inet "$table" output oifname "$dev" socket cgroupv2 level "$(nft_cgroup_level "$kind")" "\"$(nft_cgroup_path "$kind")\"" meta priority set "${class_ids[$i]}"
    fi
  done
fi

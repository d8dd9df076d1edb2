#!/usr/bin/env bash
# Starts a command inside the cgroup of a traffic kind, so that its sockets' packets go to
# that kind's htb class (cgroup/README.md):
#   v1: cgexec -g net_cls:<group>/<kind> when cgexec is installed (cgroup-tools), else
#       the shell writes its own pid to the cgroup's cgroup.procs and execs the command;
#   v2: writes its pid to <cgroup2>/<group>/<kind>/cgroup.procs and execs the command.
# The command keeps this process's pid either way, so a supervisor's signals reach it.
#
# usage: run-in-class.sh [--config FILE] [--mode v1|v2|auto] [--group NAME] [--cgroup-mount PATH]
#                        [--v2-mount PATH] [--no-cgexec] [--dry-run] <kind> -- <command> [args...]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

parse_common_options "$@"
if [ ${#rest[@]} -lt 3 ] || [ "${rest[1]}" != -- ]; then
  die "usage: run-in-class.sh [options] <kind> -- <command> [args...]"
fi
kind=${rest[0]}
command=("${rest[@]:2}")
load_classes
if ! class_index "$kind" >/dev/null || [ "$kind" = link ] || [ "$kind" = other ]; then
  die "no traffic kind '$kind' in $config_file (kinds: $(kinds | paste -sd " " -))"
fi
resolve_mode
dir=$(cgroup_dir "$kind")
[ "$dry_run" = 1 ] || [ -d "$dir" ] || die "no cgroup $dir: run setup.sh first"

if [ "$mode" = v1 ] && [ "$use_cgexec" = 1 ] && command -v cgexec >/dev/null 2>&1; then
  run exec cgexec -g "net_cls:$group/$kind" "${command[@]}"
else
  if [ "$dry_run" = 1 ]; then echo "echo \$\$ > $(quote "$dir/cgroup.procs")"; else echo $$ >"$dir/cgroup.procs"; fi
  run exec "${command[@]}"
fi

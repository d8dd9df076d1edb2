# shellcheck shell=bash disable=SC2034 # the options are read by the scripts that source this file
# Shared by setup.sh, teardown.sh and run-in-class.sh (sourced, not run): option
# parsing, the class file, where the cgroups live, and the one place commands
# are run or, with --dry-run, printed one a line (cgroup/README.md).

HERALD_CGROUP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

config_file="$HERALD_CGROUP_DIR/classes.conf"
mode=auto             # v1 (net_cls) | v2 (cgroup2 + nftables) | auto
classifier=auto       # v1 only: tc (cls_cgroup) | nft (meta cgroup) | auto
cgroup_mount=/sys/fs/cgroup
v2_mount=""           # where cgroup2 is mounted; found under cgroup_mount when empty
group=herald          # the cgroups are <group>/<kind>
table=herald          # the nftables table (inet family)
netns=""              # run tc and nft inside this network namespace
dev=""
dry_run=0
use_cgexec=1
unmount=0

die() {
  echo "${0##*/}: $*" >&2
  exit 2
}

# Parses the options every script shares; sets `rest` to the arguments left.
parse_common_options() {
  rest=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --config) config_file=${2:?--config needs a file}; shift 2 ;;
      --mode) mode=${2:?--mode needs v1, v2 or auto}; shift 2 ;;
      --classifier) classifier=${2:?--classifier needs tc, nft or auto}; shift 2 ;;
      --cgroup-mount) cgroup_mount=${2:?--cgroup-mount needs a path}; shift 2 ;;
      --v2-mount) v2_mount=${2:?--v2-mount needs a path}; shift 2 ;;
      --group) group=${2:?--group needs a name}; shift 2 ;;
      --table) table=${2:?--table needs a name}; shift 2 ;;
      --netns) netns=${2:?--netns needs a name}; shift 2 ;;
      --dev) dev=${2:?--dev needs a device}; shift 2 ;;
      --dry-run) dry_run=1; shift ;;
      --no-cgexec) use_cgexec=0; shift ;;
      --unmount) unmount=1; shift ;;
      --) rest+=("$@"); return ;;
      -*) die "unknown option $1" ;;
      *) rest+=("$1"); shift ;;
    esac
  done
  [[ $group =~ ^[A-Za-z0-9_.-]+$ ]] || die "--group must be a plain name (got '$group')"
  [[ $table =~ ^[A-Za-z0-9_]+$ ]] || die "--table must be a plain name (got '$table')"
  case "$mode" in v1 | v2 | auto) ;; *) die "--mode must be v1, v2 or auto (got '$mode')" ;; esac
  case "$classifier" in tc | nft | auto) ;; *) die "--classifier must be tc, nft or auto (got '$classifier')" ;; esac
}

# What setup.sh and teardown.sh start with: their options (no arguments besides), a
# device, the class file, the mode.
prepare_device_script() {
  parse_common_options "$@"
  [ ${#rest[@]} -eq 0 ] || die "unexpected argument ${rest[0]}"
  [ -n "$dev" ] || die "--dev is required (the device whose egress is shaped)"
  load_classes
  resolve_mode
}

# Reads the class file into parallel arrays: class_names, class_ids, class_rates, class_ceils.
load_classes() {
  [ -r "$config_file" ] || die "cannot read the class file $config_file"
  class_names=() class_ids=() class_rates=() class_ceils=()
  local name id rate ceil extra lineno=0 rate_re='^[0-9]+(\.[0-9]+)?([kmgt]?bit|[kmgt]?bps)$'
  while read -r name id rate ceil extra || [ -n "$name" ]; do
    lineno=$((lineno + 1))
    [ -z "$name" ] || [[ $name == \#* ]] && continue
    local where="$config_file:$lineno"
    [ -z "$extra" ] || die "$where: expected '<name> <classid> <rate> <ceil>', found more"
    [[ $name =~ ^[a-z][a-z0-9_-]*$ ]] || die "$where: class name '$name' must be lower-case letters, digits, - or _"
    [[ $id =~ ^1:[0-9a-f]{1,4}$ ]] || die "$where: classid '$id' must be 1:<hex minor> (the htb qdisc is 1:)"
    [[ $rate =~ $rate_re ]] || die "$where: rate '$rate' is not a tc rate (e.g. 300mbit)"
    [[ $ceil =~ $rate_re ]] || die "$where: ceil '$ceil' is not a tc rate (e.g. 800mbit)"
    local i
    for i in "${!class_names[@]}"; do
      [ "${class_names[$i]}" != "$name" ] || die "$where: class '$name' named twice"
      [ "${class_ids[$i]}" != "$id" ] || die "$where: classid $id given twice"
    done
    class_names+=("$name") class_ids+=("$id") class_rates+=("$rate") class_ceils+=("$ceil")
  done <"$config_file"
  class_index link >/dev/null || die "$config_file: no 'link' class (the parent class: the NIC's capacity)"
  class_index other >/dev/null || die "$config_file: no 'other' class (the default class for unclassified traffic)"
}

# Prints the index of a class by name; fails when there is none.
class_index() {
  local i
  for i in "${!class_names[@]}"; do
    if [ "${class_names[$i]}" = "$1" ]; then
      echo "$i"
      return 0
    fi
  done
  return 1
}

# The traffic kinds: every class but the reserved link and other.
kinds() {
  local name
  for name in "${class_names[@]}"; do
    [ "$name" = link ] || [ "$name" = other ] || echo "$name"
  done
}

# 1:10 -> 0x00010010, the net_cls.classid (and nft `meta cgroup`) form of a tc classid.
net_cls_classid() {
  printf '0x%04x%04x' "$((16#${1%%:*}))" "$((16#${1##*:}))"
}

# Decides mode (and the v1 classifier) when auto, from what the host has.
resolve_mode() {
  if [ "$mode" = auto ]; then
    if [ "$(stat -fc %T "$cgroup_mount" 2>/dev/null)" = cgroup2fs ]; then mode=v2; else mode=v1; fi
  fi
  if [ "$mode" = v1 ] && [ "$classifier" = auto ]; then
    if command -v nft >/dev/null 2>&1; then classifier=nft; else classifier=tc; fi
  fi
  if [ "$mode" = v2 ]; then
    [ "$classifier" != tc ] || die "cgroup v2 has no net_cls: tc's cgroup classifier cannot see the classes; use nftables (the default)"
    classifier=nft
    if [ -z "$v2_mount" ]; then
      if [ "$(stat -fc %T "$cgroup_mount" 2>/dev/null)" = cgroup2fs ]; then v2_mount=$cgroup_mount
      elif [ "$(stat -fc %T "$cgroup_mount/unified" 2>/dev/null)" = cgroup2fs ]; then v2_mount=$cgroup_mount/unified
      else die "no cgroup2 mount at $cgroup_mount or $cgroup_mount/unified (give --v2-mount)"
      fi
    fi
  fi
}

# The cgroup directory of a kind.
cgroup_dir() {
  if [ "$mode" = v1 ]; then echo "$cgroup_mount/net_cls/$group/$1"; else echo "$v2_mount/$group/$1"; fi
}

# nftables resolves `socket cgroupv2` paths below /sys/fs/cgroup (the cgroup mount here), and its
# level is the depth below the cgroup2 root: on a hybrid host (cgroup2 at /sys/fs/cgroup/unified)
# the path is unified/herald/<kind> at level 2.
nft_cgroup_path() {
  local dir
  dir=$(cgroup_dir "$1")
  echo "${dir#"$cgroup_mount"/}"
}
nft_cgroup_level() {
  local below=${v2_mount#"$cgroup_mount"}
  below=${below#/}
  local path
  path=$(nft_cgroup_path "$1")
  path=${path#"$below"}
  path=${path#/}
  local parts
  IFS=/ read -r -a parts <<<"$path"
  echo "${#parts[@]}"
}

# Prints its arguments as one shell line, quoting those that need it.
quote() {
  local arg out=() squote="'" escaped="'\\''"
  for arg in "$@"; do
    if [[ $arg =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]]; then out+=("$arg"); else out+=("'${arg//$squote/$escaped}'"); fi
  done
  echo "${out[*]}"
}

# Runs a command, or prints it with --dry-run.
run() {
  if [ "$dry_run" = 1 ]; then quote "$@"; else "$@"; fi
}

# Runs a tc or nft command in the chosen network namespace. Through nsenter, not `ip netns exec`:
# that one also remounts /sys, which hides /sys/fs/cgroup from nft's `socket cgroupv2` paths.
run_net() {
  if [ -n "$netns" ]; then run nsenter --net="/run/netns/$netns" "$@"; else run "$@"; fi
}

# Writes a value to a (cgroup) file, or prints `echo <value> > <file>`.
write_value() {
  if [ "$dry_run" = 1 ]; then echo "echo $1 > $(quote "$2")"; else printf '%s\n' "$1" >"$2"; fi
}

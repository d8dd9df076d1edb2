#!/usr/bin/env bash
# A multi-host test bed on one Linux machine (docs/multi-host.md): N "hosts",
# each a network namespace with its own address on one bridge, plus a
# "services" address on the bridge in the root namespace through which the
# hosts reach the machine's MariaDB, ZooKeeper and Kafka-protocol broker (which
# listen on 127.0.0.1 only). Run as root (ip netns, veth, bridge).
#
#   deploy/netns-cluster.sh up --name NAME --hosts N [--subnet A.B.C]
#       bridge NAME-br with A.B.C.1/24 (the services address), namespaces
#       NAME-1..NAME-N, host i at A.B.C.(10+i)/24 on its veth (eth0 inside).
#       Without --subnet: the first 10.213.C.0/24 no interface of the machine uses.
#   deploy/netns-cluster.sh add-host --name NAME --host I     one more host later
#   deploy/netns-cluster.sh services --name NAME --ports P,P,... [--loopback-ports P,P,...]
#       a TCP relay (socat) per port from SERVICES:P to 127.0.0.1:P in the root
#       namespace; for each --loopback-ports port also one inside every host from
#       127.0.0.1:P to SERVICES:P: a Kafka broker advertises the address it
#       listens on (librdkafka's mock: 127.0.0.1), so clients in a host must
#       find it there. add-host starts these for the new host too.
#   deploy/netns-cluster.sh link --name NAME --host I down|up  cut or heal host I's link (inside its namespace)
#   deploy/netns-cluster.sh isolate --name NAME --host I on|off
#       partition host I from the other hosts (nftables inside its namespace drops
#       what it sends to or receives from them) while it keeps the services address
#   deploy/netns-cluster.sh address --name NAME [--host I]     print host I's address (default: services)
#   deploy/netns-cluster.sh exec --name NAME --host I -- CMD...  run CMD in host I (execs: keeps the pid)
#   deploy/netns-cluster.sh down --name NAME
#       kills every process inside its hosts and its relays, deletes the
#       namespaces (and their /run/netns mounts) and the bridge; safe to repeat.
#   deploy/netns-cluster.sh sweep --prefix PREFIX
#       runs `down` for every test bed named PREFIX* whose owner process
#       (--owner PID at `up`, default the caller's parent) is gone: leftovers of a crashed run.
#
# State (relay pids, subnet, owner) lives in /run/herald-netns/NAME. Names are
# at most 11 characters ([a-z0-9]): Linux interface names have at most 15.
set -euo pipefail

state_root=/run/herald-netns
die() {
  echo "${0##*/}: $*" >&2
  exit 2
}

name="" hosts="" subnet="" host="" ports="" loopback_ports="" prefix="" owner=$PPID
command=${1:-}
[ $# -gt 0 ] && shift
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=${2:?--name needs a value}; shift 2 ;;
    --hosts) hosts=${2:?--hosts needs a number}; shift 2 ;;
    --subnet) subnet=${2:?--subnet needs A.B.C}; shift 2 ;;
    --host) host=${2:?--host needs a number}; shift 2 ;;
    --ports) ports=${2:?--ports needs a list}; shift 2 ;;
    --loopback-ports) loopback_ports=${2:?--loopback-ports needs a list}; shift 2 ;;
    --prefix) prefix=${2:?--prefix needs a value}; shift 2 ;;
    --owner) owner=${2:?--owner needs a pid}; shift 2 ;;
    --) shift; rest=("$@"); break ;;
    *) rest+=("$1"); shift ;;
  esac
done

check_name() {
  [[ $name =~ ^[a-z][a-z0-9]{0,10}$ ]] || die "--name must be 1-11 of [a-z0-9], starting with a letter (got '$name')"
  state=$state_root/$name
}
check_host() {
  [[ $host =~ ^[1-9][0-9]?$ ]] && [ "$host" -le 99 ] || die "--host must be 1..99 (got '$host')"
}
check_ports() { # a comma-separated list of TCP ports
  [ -z "$1" ] || [[ $1 =~ ^[0-9]{1,5}(,[0-9]{1,5})*$ ]] || die "ports must be a comma-separated list of numbers (got '$1')"
}
ns() { echo "$name-$1"; }
services_address() { echo "$(cat "$state/subnet").1"; }
host_address() { echo "$(cat "$state/subnet").$((10 + $1))"; }

free_subnet() {
  local c
  for c in $(seq 1 254); do
    ip -4 -o addr show | grep -q " 10\.213\.$c\." || { echo "10.213.$c"; return; }
  done
  die "no free 10.213.C.0/24 subnet"
}

# Starts a relay in the background (setsid: out of the caller's process group) and records its pid.
relay() { # label netns-or-empty listen-address port target-address
  local label=$1 netns=$2 listen=$3 port=$4 target=$5
  local run=(socat "TCP-LISTEN:$port,bind=$listen,reuseaddr,fork" "TCP:$target:$port")
  [ -z "$netns" ] || run=(ip netns exec "$netns" "${run[@]}")
  setsid "${run[@]}" < /dev/null > /dev/null 2>&1 &
  echo $! > "$state/pids/$label"
  # Ready when it listens (a client before then would be refused).
  local inside=()
  [ -z "$netns" ] || inside=(ip netns exec "$netns")
  for _ in $(seq 1 50); do
    "${inside[@]}" ss -ltnH "sport = :$port" | grep -q "$listen:$port" && return 0
    sleep 0.1
  done
  die "relay $label did not listen on $listen:$port"
}

loopback_relays() { # host
  local p
  [ -s "$state/loopback-ports" ] || return 0
  for p in $(tr ',' ' ' < "$state/loopback-ports"); do
    relay "host$1-$p" "$(ns "$1")" 127.0.0.1 "$p" "$(services_address)"
  done
}

make_host() { # i
  local i=$1 netns veth
  netns=$(ns "$i")
  veth="$name-v$i"
  ip netns add "$netns"
  ip link add "$veth" type veth peer name eth0 netns "$netns"
  ip link set "$veth" master "$name-br" up
  ip -n "$netns" link set lo up
  ip -n "$netns" addr add "$(host_address "$i")/24" dev eth0
  ip -n "$netns" link set eth0 up
  echo "$i" >> "$state/hosts"
}

up() {
  check_name
  [[ $hosts =~ ^[1-9][0-9]?$ ]] || die "--hosts must be 1..99 (got '$hosts')"
  [ ! -e "$state" ] || die "a test bed named $name exists ($state): run down first"
  [ -n "$subnet" ] || subnet=$(free_subnet)
  [[ $subnet =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "--subnet must be A.B.C (got '$subnet')"
  mkdir -p "$state/pids"
  echo "$subnet" > "$state/subnet"
  echo "$owner" > "$state/owner"
  : > "$state/hosts"
  ip link add "$name-br" type bridge
  ip addr add "$subnet.1/24" dev "$name-br"
  ip link set "$name-br" up
  local i
  for i in $(seq 1 "$hosts"); do make_host "$i"; done
  echo "$subnet"
}

down_one() { # name
  name=$1
  state=$state_root/$name
  local f pid netns
  # Every process in a host first (a process left in a deleted namespace keeps it alive, unreachable).
  for netns in $(ip netns list | awk '{print $1}' | grep -E "^$name-[0-9]+$" || true); do
    for pid in $(ip netns pids "$netns" 2> /dev/null || true); do kill -9 "$pid" 2> /dev/null || true; done
  done
  if [ -d "$state/pids" ]; then
    for f in "$state"/pids/*; do
      [ -e "$f" ] || continue
      # Its process group too: socat forks a child per connection (setsid made it the group's leader).
      kill -9 -- "-$(cat "$f")" 2> /dev/null || kill -9 "$(cat "$f")" 2> /dev/null || true
    done
  fi
  # The root ends of the veths first: deleting a namespace frees its veth only later, asynchronously.
  for f in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^$name-v[0-9]+$" || true); do
    ip link del "$f" 2> /dev/null || true
  done
  for netns in $(ip netns list | awk '{print $1}' | grep -E "^$name-[0-9]+$" || true); do
    ip netns del "$netns" 2> /dev/null || true
  done
  ip link del "$name-br" 2> /dev/null || true
  rm -rf "$state"
}

case "$command" in
  up) up ;;
  add-host)
    check_name
    check_host
    [ -d "$state" ] || die "no test bed named $name"
    make_host "$host"
    loopback_relays "$host"
    ;;
  services)
    check_name
    check_ports "$ports"
    check_ports "$loopback_ports"
    [ -d "$state" ] || die "no test bed named $name"
    for p in ${ports//,/ }; do relay "services-$p" "" "$(services_address)" "$p" 127.0.0.1; done
    echo "$loopback_ports" > "$state/loopback-ports"
    for p in ${loopback_ports//,/ }; do
      # The root end of a loopback relay: SERVICES:P -> 127.0.0.1:P (unless --ports has it).
      [ -e "$state/pids/services-$p" ] || relay "services-$p" "" "$(services_address)" "$p" 127.0.0.1
    done
    while read -r i; do loopback_relays "$i"; done < "$state/hosts"
    ;;
  link)
    check_name
    check_host
    case "${rest[0]:-}" in up | down) ;; *) die "link needs up or down" ;; esac
    ip -n "$(ns "$host")" link set eth0 "${rest[0]}"
    ;;
  isolate)
    check_name
    check_host
    netns=$(ns "$host")
    case "${rest[0]:-}" in
      on)
        ip netns exec "$netns" nft -f - << NFT
table inet herald_isolate {
  chain input { type filter hook input priority 0; ip saddr $(cat "$state/subnet").0/24 ip saddr != $(services_address) drop; }
  chain output { type filter hook output priority 0; ip daddr $(cat "$state/subnet").0/24 ip daddr != $(services_address) drop; }
}
NFT
        ;;
      off) ip netns exec "$netns" nft delete table inet herald_isolate 2> /dev/null || true ;;
      *) die "isolate needs on or off" ;;
    esac
    ;;
  address)
    check_name
    if [ -n "$host" ]; then check_host; host_address "$host"; else services_address; fi
    ;;
  exec)
    check_name
    check_host
    [ ${#rest[@]} -gt 0 ] || die "exec needs a command after --"
    exec ip netns exec "$(ns "$host")" "${rest[@]}"
    ;;
  down)
    check_name
    down_one "$name"
    ;;
  sweep)
    [[ $prefix =~ ^[a-z][a-z0-9]{0,10}$ ]] || die "--prefix must be 1-11 of [a-z0-9] (got '$prefix')"
    # Test beds with state, and namespaces or bridges without (a run killed during up).
    candidates=$( (ls "$state_root" 2> /dev/null || true; ip netns list | awk '{print $1}' | sed -E 's/-[0-9]+$//'; ip -o link show type bridge | awk -F': ' '{print $2}' | sed -E 's/-br(@.*)?$//') | grep -E "^$prefix[a-z0-9]*$" | sort -u || true)
    for n in $candidates; do
      o=$(cat "$state_root/$n/owner" 2> /dev/null || echo 0)
      if [ "$o" = 0 ] || ! kill -0 "$o" 2> /dev/null; then
        down_one "$n"
        echo "swept $n"
      fi
    done
    ;;
  *) die "usage: $0 up|add-host|services|link|isolate|address|exec|down|sweep [options] (see the header)" ;;
esac

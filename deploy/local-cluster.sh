#!/usr/bin/env bash
# A whole production-profile Herald cluster on this host, for trying the
# production profile and for upgrade drills:
#   2 interfaces, 3 schedulers, 2 dispatchers, 2 executors, 1 presence agent
#   (one host: one shared online bitmap), 2 controllers,
# every tier its own process, ZeroMQ over tcp with CURVE between them, against
# local MariaDB, ZooKeeper and a Kafka-protocol broker.
#
#   deploy/local-cluster.sh start          build, keys, schema, servers, processes
#   deploy/local-cluster.sh status         which processes run
#   deploy/local-cluster.sh start-one <id> (re)start one process, e.g. after a drain
#   deploy/local-cluster.sh config         print the config file's path
#   deploy/local-cluster.sh stop           stop the processes and the servers it started
#
# The schedulers agree on their ring with APTA (docs/apta.md; every scheduler,
# dispatcher, executor and interface has a membership endpoint), with timers
# short enough for drills: Hello every $HERALD_APTA_HELLO_MS (200) ms, dead
# after $HERALD_APTA_DEAD_MS (2000), silence $HERALD_APTA_SILENCE_MS (2000).
# Every process has a management endpoint on loopback (`herald admin
# status|drain <id> --config <config>`, docs/operations.md); every call needs
# the cluster's management token, made at the first start in
# $dir/management-token (mode 0600; its SHA-256 is management.tokenHash):
#   HERALD_MANAGEMENT_TOKEN_FILE=$dir/management-token herald admin status scheduler-1 --config $dir/herald.json
# deploy/rolling-upgrade.sh drains and restarts them one by one.
#
# Servers: MariaDB at $HERALD_MYSQL_URL (default mysql://root@127.0.0.1:3306);
# ZooKeeper at $HERALD_ZK, else a standalone one is started here; Kafka at
# $HERALD_KAFKA_BROKERS, else librdkafka's mock cluster (kcat) is started here.
# Everything lives under $HERALD_CLUSTER_DIR (default /tmp/herald-local-cluster);
# $HERALD_CLUSTER_NAME (default local) names its database (herald_<name>),
# znode root (/herald-<name>) and topic prefix (<name>.); ports start at
# $HERALD_BASE_PORT (default 17100) and use the next 100: HTTP +1..2, inboxes +11..36
# (schedulers' control inboxes +15..17, executors' real-time inboxes +35..36),
# membership +41..62, management +66..77, ZooKeeper +81.
# The presence agent's online bitmap is $dir/online.bitmap unless
# $HERALD_BITMAP_FILE names another (production puts it on /dev/shm).
# The API needs a token (docs/api.md): with $HERALD_ADMIN_TOKEN set, the
# interfaces store it as an admin token at start; otherwise the first start
# makes one with `herald token create` and keeps it in $dir/admin-token.
set -euo pipefail
# Everything the script and the processes create is this user's only (docs/security.md).
umask 077
cd "$(dirname "$0")/.."
root=$(pwd)
dir=${HERALD_CLUSTER_DIR:-/tmp/herald-local-cluster}
herald="node $root/packages/cli/dist/main.js"
base_port=${HERALD_BASE_PORT:-17100}
name=${HERALD_CLUSTER_NAME:-local}

pidfile() { echo "$dir/pids/$1"; }
running() { [ -f "$(pidfile "$1")" ] && kill -0 "$(cat "$(pidfile "$1")")" 2>/dev/null; }

wait_for() { # what, seconds, command...
  local what=$1 seconds=$2; shift 2
  for _ in $(seq 1 $((seconds * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "local-cluster: $what not ready after ${seconds}s" >&2; return 1
}

start_servers() {
  mkdir -p "$dir/pids" "$dir/logs"
  if [ -z "${HERALD_ZK:-}" ]; then
    local zk_port=$((base_port + 81))
    mkdir -p "$dir/zk/data"
    printf 'tickTime=1000\ndataDir=%s\nclientPort=%s\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n4lw.commands.whitelist=ruok\n' "$dir/zk/data" "$zk_port" > "$dir/zk/zoo.cfg"
    if ! running zookeeper; then
      nohup java -Xmx256m -cp "/usr/share/java/*:/usr/share/zookeeper/*:/etc/zookeeper/conf" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zk/zoo.cfg" > "$dir/logs/zookeeper.log" 2>&1 &
      echo $! > "$(pidfile zookeeper)"
    fi
    wait_for ZooKeeper 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/$zk_port && echo ruok >&3 && grep -q imok <&3"
    HERALD_ZK="127.0.0.1:$zk_port"
  fi
  if [ -z "${HERALD_KAFKA_BROKERS:-}" ]; then
    if ! running kafka; then
      nohup kcat -C -t herald-boot -X test.mock.num.brokers=3 -d mock -b localhost:1 > /dev/null 2> "$dir/logs/kafka.log" &
      echo $! > "$(pidfile kafka)"
    fi
    wait_for "Kafka mock cluster" 15 grep -q 'bootstrap.servers=' "$dir/logs/kafka.log"
    HERALD_KAFKA_BROKERS=$(grep -o 'bootstrap.servers=[0-9.:,]*' "$dir/logs/kafka.log" | head -1 | cut -d= -f2)
  fi
  HERALD_MYSQL_URL=${HERALD_MYSQL_URL:-mysql://root@127.0.0.1:3306}
}

# The management credential: a token file made once, its hash in the config.
ensure_credential() {
  [ -s "$dir/management-token" ] || $herald admin credential --out "$dir/management-token" > /dev/null
}
token_hash() { tr -d '\n' < "$dir/management-token" | sha256sum | cut -d' ' -f1; }

write_config() {
  local brokers
  brokers=$(echo "$HERALD_KAFKA_BROKERS" | sed 's/[^,]*/"&"/g')
  # member id port: the inbox at base+port, the APTA membership socket 30 above it.
  member() { echo "{ \"id\": \"$1\", \"endpoint\": \"tcp://127.0.0.1:$(($2))\", \"membership\": \"tcp://127.0.0.1:$(($2 + 30))\" }"; }
  local management="" i=0
  for p in $PROCESSES; do
    i=$((i + 1))
    management="$management${management:+, }\"${p#*:}\": \"127.0.0.1:$((base_port + 65 + i))\""
  done
  cat > "$dir/herald.json" <<JSON
{
  "profile": "production",
  "dataDir": "$dir/data",
  "http": { "host": "127.0.0.1", "port": $((base_port + 1)) },
  "mysql": { "url": "$HERALD_MYSQL_URL", "database": "herald_$name" },
  "zookeeper": { "connectionString": "$HERALD_ZK", "root": "/herald-$name" },
  "kafka": { "brokers": [$brokers], "topicPrefix": "$name." },
  "curve": { "keysDir": "$dir/keys" },
  "topology": {
    "schedulers": [ $(for i in 1 2 3; do member scheduler-$i $((base_port + 10 + i)) | sed "s#}\$#, \"controlEndpoint\": \"tcp://127.0.0.1:$((base_port + 14 + i))\" }#"; if [ $i -lt 3 ]; then echo ,; fi; done) ],
    "dispatchers": [ $(member dispatcher-1 $((base_port + 21))), $(member dispatcher-2 $((base_port + 22))) ],
    "executors": [ $(member executor-1 $((base_port + 31)) | sed "s#}\$#, \"realtimeEndpoint\": \"tcp://127.0.0.1:$((base_port + 35))\" }#"), $(member executor-2 $((base_port + 32)) | sed "s#}\$#, \"realtimeEndpoint\": \"tcp://127.0.0.1:$((base_port + 36))\" }#") ],
    "presence": [ { "id": "presence-1", "bitmapFile": "${HERALD_BITMAP_FILE:-$dir/online.bitmap}", "executors": ["executor-1", "executor-2"] } ],
    "interfaces": [ { "id": "interface-1", "membership": "tcp://127.0.0.1:$((base_port + 55))" }, { "id": "interface-2", "membership": "tcp://127.0.0.1:$((base_port + 56))" } ]
  },
  "apta": { "helloIntervalMs": ${HERALD_APTA_HELLO_MS:-200}, "deadIntervalMs": ${HERALD_APTA_DEAD_MS:-2000}, "silencePeriodMs": ${HERALD_APTA_SILENCE_MS:-2000} },
  "scheduler": { "unitStallMs": ${HERALD_UNIT_STALL_MS:-5000} },
  "management": { "endpoints": { $management }, "drainTimeoutMs": ${HERALD_DRAIN_TIMEOUT_MS:-30000}, "tokenHash": "$(token_hash)" }
}
JSON
}

start_process() { # tier id [args...]
  local tier=$1 id=$2; shift 2
  running "$id" && return 0
  nohup $herald start "$tier" --id "$id" --config "$dir/herald.json" "$@" > "$dir/logs/$id.log" 2>&1 &
  echo $! > "$(pidfile "$id")"
  wait_for "$tier $id" 60 grep -qE '^herald: .* started' "$dir/logs/$id.log" || { tail -20 "$dir/logs/$id.log" >&2; return 1; }
}

port_args() { # id: the HTTP port of an interface
  case $1 in
    interface-1) echo --port $((base_port + 1)) ;;
    interface-2) echo --port $((base_port + 2)) ;;
  esac
}

PROCESSES="scheduler:scheduler-1 scheduler:scheduler-2 scheduler:scheduler-3 dispatcher:dispatcher-1 dispatcher:dispatcher-2 presence:presence-1 executor:executor-1 executor:executor-2 controller:controller-1 controller:controller-2 interface:interface-1 interface:interface-2"

case "${1:-}" in
  start)
    [ "${HERALD_SKIP_BUILD:-0}" = 1 ] || { node scripts/prune-stale-dist.js && npx tsc -b; }
    start_servers
    mkdir -p "$dir"
    ensure_credential
    write_config
    ids=""
    for p in $PROCESSES; do ids="$ids ${p#*:}"; done
    [ -d "$dir/keys" ] || $herald keys --dir "$dir/keys" $ids > /dev/null
    $herald migrate --config "$dir/herald.json"
    if [ -z "${HERALD_ADMIN_TOKEN:-}" ] && [ ! -s "$dir/admin-token" ]; then
      (umask 077; $herald token create --role admin --name "local cluster admin" --config "$dir/herald.json" > "$dir/admin-token" 2> /dev/null)
    fi
    for p in $PROCESSES; do
      tier=${p%%:*}; id=${p#*:}
      # shellcheck disable=SC2046
      start_process "$tier" "$id" $(port_args "$id")
      echo "started $tier $id"
    done
    echo "Herald local cluster: API at http://127.0.0.1:$((base_port + 1)) and http://127.0.0.1:$((base_port + 2)); logs in $dir/logs"
    if [ -z "${HERALD_ADMIN_TOKEN:-}" ]; then echo "admin token (Authorization: Bearer ...) in $dir/admin-token"; fi
    echo "management token (herald admin: HERALD_MANAGEMENT_TOKEN_FILE) in $dir/management-token"
    ;;
  start-one)
    id=${2:?usage: $0 start-one <process id>}
    tier=""
    for p in $PROCESSES; do [ "${p#*:}" = "$id" ] && tier=${p%%:*}; done
    [ -n "$tier" ] || { echo "local-cluster: no process $id (known: $PROCESSES)" >&2; exit 2; }
    [ -f "$dir/herald.json" ] || { echo "local-cluster: not started (no $dir/herald.json)" >&2; exit 2; }
    # A process that was just drained may still be exiting: wait for it, never start a second one.
    for _ in $(seq 1 300); do running "$id" || break; sleep 0.1; done
    running "$id" && { echo "local-cluster: $id is still running (pid $(cat "$(pidfile "$id")")); drain or stop it first" >&2; exit 1; }
    # shellcheck disable=SC2046
    start_process "$tier" "$id" $(port_args "$id")
    echo "started $tier $id"
    ;;
  config)
    echo "$dir/herald.json"
    ;;
  status)
    for p in $PROCESSES zookeeper kafka; do
      id=${p#*:}
      if running "$id"; then echo "running  $id"; else echo "stopped  $id"; fi
    done
    ;;
  stop)
    for p in $(echo $PROCESSES | tr ' ' '\n' | tac) zookeeper kafka; do
      id=${p#*:}
      if running "$id"; then kill "$(cat "$(pidfile "$id")")"; fi
    done
    for p in $PROCESSES zookeeper kafka; do
      id=${p#*:}
      for _ in $(seq 1 100); do running "$id" || break; sleep 0.1; done
      rm -f "$(pidfile "$id")"
    done
    echo "stopped"
    ;;
  *)
    echo "usage: $0 start|status|start-one <id>|config|stop" >&2
    exit 2
    ;;
esac

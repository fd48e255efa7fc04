#!/usr/bin/env bash
# Front-end load harness: requests/s, p99 and context switches per request for the upstream direct (nginx
# serving a 1 KiB file), a stock Jetty reverse proxy, nginx as a reverse proxy with limit_req per client,
# and Sluice (admit-all policy, many client addresses), measured interleaved (A B C D, A B C D, ...) with
# the servers on core 0 and wrk on core 1.
#   bench/front/run.sh [ROUNDS] [SECONDS] [WARMUP_SECONDS]
# With CANDIDATE_JAR=path/to/sluice-server.jar, a second Sluice built from that jar is measured in the
# same interleaved run (an A/B of a change, as a ratio within each round).
# With CLUSTER=1, a Sluice in cluster mode (one node, --redis to a local redis-server on core 0) is measured in
# the same run, beside the one without Redis; its Redis commands per request are printed at the end.
# same interleaved run (an A/B of a change, as a ratio within each round). CANDIDATE_FLAGS adds flags to the
# candidate's command line (CANDIDATE_JAR defaults to the same jar then), SLUICE_FLAGS to the first Sluice's:
# CANDIDATE_FLAGS="--front-path proxy" measures the lean path (default) against the proxy path, one jar.
# CLIENTS=N (default: a new address per request) makes wrk cycle through N client addresses.
# JAVA_OPTS (default: none, the JVM's defaults, which on one core means the Serial collector) goes to every
# JVM alike: the plain Jetty proxy and each Sluice, e.g. JAVA_OPTS="-XX:+UseZGC".
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}; SECONDS_PER_RUN=${2:-15}; WARMUP=${3:-60}
read -r -a JVM <<<"${JAVA_OPTS:-}"
read -r -a SFLAGS <<<"${SLUICE_FLAGS:-}"
read -r -a CFLAGS <<<"${CANDIDATE_FLAGS:-}"
for tool in wrk nginx; do
  command -v "$tool" >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx >/dev/null; }
done
[[ -f embedded-server/target/sluice-server.jar ]] || ./mvnw -q -B -DskipTests package
JAR=embedded-server/target/sluice-server.jar
STATE=$(mktemp -d)
# The upstream's 1 KiB file, in a directory nginx's worker (another user) can read.
SITE=$(mktemp -d); chmod 755 "$SITE"
head -c 1024 /dev/zero | tr '\0' 'x' >"$SITE/index.html"; chmod 644 "$SITE/index.html"
sed "s#@SITE@#$SITE#" bench/front/nginx.conf >"$SITE/nginx.conf"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$STATE" "$SITE"; }
trap cleanup EXIT

taskset -c 0 nginx -c "$SITE/nginx.conf" & pids+=($!)
taskset -c 0 java -Xmx1g "${JVM[@]}" -cp "$JAR" io.sluice.server.bench.PlainProxy 19002 http://127.0.0.1:19001 >/dev/null 2>&1 & pids+=($!)
taskset -c 0 java -Xmx1g "${JVM[@]}" -jar "$JAR" --listen 127.0.0.1:19003 --admin 127.0.0.1:19093 \
  --upstream http://127.0.0.1:19001 --state "$STATE" --policy bench/front/admit-all-policy.json "${SFLAGS[@]}" >/dev/null 2>&1 & pids+=($!)
declare -A PIDS=([19001]=${pids[0]} [19004]=${pids[0]} [19002]=${pids[1]} [19003]=${pids[2]})
declare -A NAMES=([19001]="upstream direct (nginx static)" [19002]="plain Jetty proxy" [19004]="nginx proxy + limit_req" [19003]="Sluice (admit-all, many clients)")
PORTS=(19001 19002 19004 19003)
if [[ -n "${CANDIDATE_JAR:-}" || -n "${CANDIDATE_FLAGS:-}" ]]; then
  CANDIDATE_JAR=${CANDIDATE_JAR:-$JAR}
  STATE2=$(mktemp -d)
  taskset -c 0 java -Xmx1g "${JVM[@]}" -jar "$CANDIDATE_JAR" --listen 127.0.0.1:19005 --admin 127.0.0.1:19095 \
    --upstream http://127.0.0.1:19001 --state "$STATE2" --policy bench/front/admit-all-policy.json "${CFLAGS[@]}" \
    >/dev/null 2>&1 &
  pids+=($!)
  NAMES[19005]="Sluice candidate ($CANDIDATE_JAR ${CANDIDATE_FLAGS:-})"
  PIDS[19005]=$!
  PORTS+=(19005)
fi
if [[ -n "${CLUSTER:-}" ]]; then
  command -v redis-server >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; }
  STATE3=$(mktemp -d)
  taskset -c 0 redis-server --port 19379 --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
    --loglevel warning >/dev/null 2>&1 & pids+=($!)
  taskset -c 0 java -Xmx1g "${JVM[@]}" -jar "$JAR" --listen 127.0.0.1:19006 --admin 127.0.0.1:19096 \
    --upstream http://127.0.0.1:19001 --state "$STATE3" --policy bench/front/admit-all-policy.json \
    --redis redis://127.0.0.1:19379 --node-name bench >/dev/null 2>&1 &
  pids+=($!)
  NAMES[19006]="Sluice cluster mode (one node, local Redis)"
  PIDS[19006]=$!
  PORTS+=(19006)
fi
sleep 5
load() { taskset -c 1 wrk -t1 -c32 -d"$2"s --latency -s bench/front/many-clients.lua "http://127.0.0.1:$1/"; }

echo "JVM options: ${JVM[*]:-(none)}; warming up each target for ${WARMUP}s" >&2
for port in "${PORTS[@]}"; do load "$port" "$WARMUP" >/dev/null; done
if [[ -n "${CLUSTER:-}" ]]; then redis-cli -p 19379 config resetstat >/dev/null; fi
cluster_requests=0

# Context switches (voluntary + involuntary) of every thread of a process and of its children (nginx's
# worker); the upstream and the nginx proxy share one nginx, so their figures include both servers' work.
switches() {
  local pid=$1 total=0 p
  for p in "$pid" $(pgrep -P "$pid" || true); do
    total=$((total + $(cat /proc/"$p"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {s += $2} END {print s + 0}')))
  done
  echo "$total"
}

echo "round,target,requests_per_s,p99_ms,context_switches_per_request"
for round in $(seq 1 "$ROUNDS"); do
  for port in "${PORTS[@]}"; do
    before=$(switches "${PIDS[$port]}")
    out=$(load "$port" "$SECONDS_PER_RUN")
    after=$(switches "${PIDS[$port]}")
    requests=$(awk '/requests in/ {print $1}' <<<"$out")
    cs=$(awk -v d=$((after - before)) -v n="$requests" 'BEGIN {printf "%.2f", (n > 0 ? d / n : 0)}')
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub("us","",v); v=v/1000} else if (v ~ /ms$/) {sub("ms","",v)} else if (v ~ /s$/) {sub("s","",v); v=v*1000}; print v}' <<<"$out")
    non2xx=$(awk '/Non-2xx/ {print $5}' <<<"$out")
    if [[ $port == 19006 ]]; then cluster_requests=$((cluster_requests + requests)); fi
    echo "$round,${NAMES[$port]},$rps,$p99,$cs${non2xx:+,non-2xx=$non2xx}"
  done
done
if [[ -n "${CLUSTER:-}" ]]; then
  # Every Redis command the cluster node sent during the measured runs (probes and heartbeats included) over the
  # requests wrk made of it meanwhile.
  # (INFO commandstats also counts the commands scripts run inside Redis: only commands never run inside a script
  # are summed; the policy follower's catch-up reads, about one a second, are left out.)
  calls=$(redis-cli -p 19379 info commandstats \
    | awk -F'[:=,]' '/^cmdstat_(evalsha|eval|ping|script|xread):/ {s += $3} END {print s + 0}')
  awk -v c="$calls" -v n="$cluster_requests" \
    'BEGIN {printf "cluster mode: %d Redis commands for %d requests: %.3f per request\n", c, n, (n > 0 ? c / n : 0)}'
fi

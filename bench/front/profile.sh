#!/usr/bin/env bash
# Where the front end's time goes: Sluice under the harness's load (admit-all policy, many client
# addresses) with Java Flight Recorder on, then the hottest frames of the server's threads.
#   bench/front/profile.sh [SECONDS] [WARMUP_SECONDS]     (recording in /tmp/sluice-front.jfr)
# With CLUSTER=1, Sluice runs in cluster mode on a local redis-server (core 0 too; REDIS_CORE=1 puts it on wrk's
# core, as run.sh does). CLIENTS=N cycles wrk through N client addresses (run.sh's CLIENTS).
# SAMPLE_PERIOD=1ms samples Java code every millisecond instead of the profile settings' 10-20 ms (more samples
# for a short run, at some cost to the run's own speed).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_TO_RECORD=${1:-30}; WARMUP=${2:-30}
for tool in wrk nginx; do
  command -v "$tool" >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx >/dev/null; }
done
[[ -f embedded-server/target/sluice-server.jar ]] || ./mvnw -q -B -DskipTests package
STATE=$(mktemp -d); JFR=/tmp/sluice-front.jfr
# The upstream's 1 KiB file, in a directory nginx's worker (another user) can read.
SITE=$(mktemp -d); chmod 755 "$SITE"
head -c 1024 /dev/zero | tr '\0' 'x' >"$SITE/index.html"; chmod 644 "$SITE/index.html"
sed "s#@SITE@#$SITE#" bench/front/nginx.conf >"$SITE/nginx.conf"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$STATE" "$SITE"; }
trap cleanup EXIT
taskset -c 0 nginx -c "$SITE/nginx.conf" & pids+=($!)
CLUSTER_FLAGS=()
if [[ -n "${CLUSTER:-}" ]]; then
  command -v redis-server >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; }
  taskset -c "${REDIS_CORE:-0}" redis-server --port 19379 --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
    --loglevel warning >/dev/null 2>&1 & pids+=($!)
  CLUSTER_FLAGS=(--redis redis://127.0.0.1:19379 --node-name profile)
fi
taskset -c 0 java -Xmx1g -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
  -jar embedded-server/target/sluice-server.jar --listen 127.0.0.1:19003 --admin 127.0.0.1:19093 \
  --upstream http://127.0.0.1:19001 --state "$STATE" --policy bench/front/admit-all-policy.json \
  "${CLUSTER_FLAGS[@]}" >/dev/null 2>&1 &
SLUICE=$!; pids+=($!)
sleep 5
load() { taskset -c 1 wrk -t1 -c32 -d"$1"s --latency -s bench/front/many-clients.lua http://127.0.0.1:19003/; }
load "$WARMUP" >/dev/null
SAMPLING=(); [[ -n "${SAMPLE_PERIOD:-}" ]] && SAMPLING=("jdk.ExecutionSample#period=$SAMPLE_PERIOD")
jcmd "$SLUICE" JFR.start name=front settings=profile "${SAMPLING[@]}" filename="$JFR" >/dev/null
load "$SECONDS_TO_RECORD" | grep -E "Requests/sec|99%"
jcmd "$SLUICE" JFR.stop name=front >/dev/null
echo "top frames (self), share of execution samples:"
jfr print --events jdk.ExecutionSample "$JFR" | awk '/stackTrace = \[/ {getline; sub(/^[ \t]+/, ""); sub(/line:.*/, ""); n[$0]++; t++} END {for (f in n) printf "%5.1f%%  %s\n", 100*n[f]/t, f}' | sort -rn | head -40

#!/usr/bin/env bash
# Front-end load harness: requests/s, p99 and context switches per request for the upstream direct (nginx
# serving a 1 KiB file), a stock Jetty reverse proxy, nginx as a reverse proxy with limit_req per client,
# and Sluice (admit-all policy, many client addresses), measured interleaved (A B C D, A B C D, ...) with
# the servers on core 0 and wrk on core 1.
#   bench/front/run.sh [ROUNDS] [SECONDS] [WARMUP_SECONDS]
# With CANDIDATE_JAR=path/to/sluice-server.jar, a second Sluice built from that jar is measured in the
# same interleaved run (an A/B of a change, as a ratio within each round).
# With CLUSTER=1, a Sluice in cluster mode (one node, --redis to a local redis-server on core 0) is measured in
# the same run, beside the one without Redis; its Redis commands per request are printed at the end. With
# CANDIDATE_JAR as well, a cluster node built from that jar (with its own redis-server) is measured beside it.
# REDIS_CORE=1 puts redis-server on wrk's core instead of the servers' (as if Redis ran on another machine).
# ONLY="19003 19006" measures only those targets (ports: 19001 upstream, 19002 plain Jetty proxy, 19004 nginx
# proxy, 19003 Sluice, 19005 candidate, 19006 cluster node, 19007 candidate cluster node, 19008 byte relay).
# The byte relay (io.sluice.server.bench.ByteRelay) is the floor of a JVM front end: bytes copied between each visitor
# connection and an upstream connection of its own on one NIO selector, no HTTP; it is measured only when ONLY names it.
# CANDIDATE_JAVA_OPTS gives the candidate JVM options of its own (after JAVA_OPTS), e.g. a heap setting to try.
# CANDIDATE_FLAGS adds flags to the candidate's command line (CANDIDATE_JAR defaults to the same jar then), SLUICE_FLAGS to the first Sluice's:
# CANDIDATE_FLAGS="--front-path proxy" measures the lean path (default) against the proxy path, one jar.
# CLIENTS=N (default: a new address per request) makes wrk cycle through N client addresses.
# CONNECTIONS=N (default 32) is how many connections wrk keeps open, each sending its next request when the last is
# answered: more keep a target that waits on Redis as busy as one that does not.
# SYSCALLS=1 counts the target's system calls per request during each run (perf's syscall tracepoints, the calls
# a front end makes per request: reads, writes, epoll, futex), printed after its figures.
# THREADS=1 splits the target's CPU per request by thread (its request threads, Lettuce's I/O thread, the JIT's
# compilers...), user and system, printed after its figures.
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
[[ -f embedded-server/target/sluice-server.jar && -f demo/target/sluice-demo.jar ]] || ./mvnw -q -B -DskipTests package
JAR=embedded-server/target/sluice-server.jar
# The plain Jetty proxy and the byte relay are the demo module's (not in the server jar).
BENCH_JAR=demo/target/sluice-demo.jar
# The upstream's 1 KiB file, in a directory nginx's worker (another user) can read.
SITE=$(mktemp -d); chmod 755 "$SITE"
head -c 1024 /dev/zero | tr '\0' 'x' >"$SITE/index.html"; chmod 644 "$SITE/index.html"
sed "s#@SITE@#$SITE#" bench/front/nginx.conf >"$SITE/nginx.conf"
pids=(); STATES=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; rm -rf "$SITE" "${STATES[@]}"; }
trap cleanup EXIT
declare -A PIDS=() NAMES=() REDIS_OF=() REDIS_PORT=()

# A Sluice on port $1 (admin port $1 + 90, a state directory of its own) from jar $2, with the JVM options in
# string $3 after JAVA_OPTS, and the flags after that.
start_sluice() {
  local port=$1 jar=$2 state extra; read -r -a extra <<<"$3"; shift 3
  state=$(mktemp -d); STATES+=("$state")
  taskset -c 0 java -Xmx1g "${JVM[@]}" "${extra[@]}" -jar "$jar" --listen "127.0.0.1:$port" \
    --admin "127.0.0.1:$((port + 90))" --upstream http://127.0.0.1:19001 --state "$state" \
    --policy bench/front/admit-all-policy.json "$@" >/dev/null 2>&1 &
  pids+=($!); PIDS[$port]=$!; PORTS+=("$port")
}
# A cluster node (port $1) with its own redis-server (port $2), from jar $3, JVM options $4.
start_cluster_node() {
  taskset -c "${REDIS_CORE:-0}" redis-server --port "$2" --bind 127.0.0.1 --save "" --appendonly no \
    --daemonize no --loglevel warning >/dev/null 2>&1 & pids+=($!)
  REDIS_OF[$1]=$!; REDIS_PORT[$1]=$2
  start_sluice "$1" "$3" "$4" --redis "redis://127.0.0.1:$2" --node-name bench
}

taskset -c 0 nginx -c "$SITE/nginx.conf" & pids+=($!)
taskset -c 0 java -Xmx1g "${JVM[@]}" -cp "$BENCH_JAR" io.sluice.server.bench.PlainProxy 19002 http://127.0.0.1:19001 >/dev/null 2>&1 & pids+=($!)
taskset -c 0 java -Xmx1g "${JVM[@]}" -cp "$BENCH_JAR" io.sluice.server.bench.ByteRelay 19008 127.0.0.1 19001 >/dev/null 2>&1 & pids+=($!)
PIDS=([19001]=${pids[0]} [19004]=${pids[0]} [19002]=${pids[1]} [19008]=${pids[2]})
NAMES=([19001]="upstream direct (nginx static)" [19002]="plain Jetty proxy" [19004]="nginx proxy + limit_req" [19003]="Sluice (admit-all, many clients)" [19008]="byte relay (JVM floor, no HTTP)")
PORTS=(19001 19002 19004)
start_sluice 19003 "$JAR" "" "${SFLAGS[@]}"
if [[ -n "${CANDIDATE_JAR:-}" || -n "${CANDIDATE_FLAGS:-}" || -n "${CANDIDATE_JAVA_OPTS:-}" ]]; then
  CANDIDATE_JAR=${CANDIDATE_JAR:-$JAR}
  start_sluice 19005 "$CANDIDATE_JAR" "${CANDIDATE_JAVA_OPTS:-}" "${CFLAGS[@]}"
  NAMES[19005]="Sluice candidate ($CANDIDATE_JAR ${CANDIDATE_FLAGS:-} ${CANDIDATE_JAVA_OPTS:-})"
fi
if [[ -n "${CLUSTER:-}" ]]; then
  command -v redis-server >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; }
  start_cluster_node 19006 19379 "$JAR" ""
  NAMES[19006]="Sluice cluster mode (one node, local Redis)"
  if [[ -n "${CANDIDATE_JAR:-}" ]]; then
    start_cluster_node 19007 19380 "$CANDIDATE_JAR" "${CANDIDATE_JAVA_OPTS:-}"
    NAMES[19007]="Sluice candidate cluster mode ($CANDIDATE_JAR ${CANDIDATE_JAVA_OPTS:-})"
  fi
fi
if [[ -n "${ONLY:-}" ]]; then read -r -a PORTS <<<"$ONLY"; fi
# Every target answering before any is loaded (several JVMs starting on one core take a while).
for port in "${PORTS[@]}"; do
  for _ in $(seq 1 120); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.5
  done
done
load() { taskset -c 1 wrk -t1 -c"${CONNECTIONS:-32}" -d"$2"s --latency -s bench/front/many-clients.lua "http://127.0.0.1:$1/"; }

echo "JVM options: ${JVM[*]:-(none)}; warming up each target for ${WARMUP}s" >&2
for port in "${PORTS[@]}"; do load "$port" "$WARMUP" >/dev/null; done
for port in "${!REDIS_PORT[@]}"; do redis-cli -p "${REDIS_PORT[$port]}" config resetstat >/dev/null; done
declare -A REQUESTS=()

# Context switches (voluntary + involuntary) of every thread of a process and of its children (nginx's
# worker); the upstream and the nginx proxy share one nginx, so their figures include both servers' work.
switches() {
  local pid=$1 total=0 p
  for p in "$pid" $(pgrep -P "$pid" || true); do
    total=$((total + $(cat /proc/"$p"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {s += $2} END {print s + 0}')))
  done
  echo "$total"
}

# CPU time (user + system, in clock ticks) of a process and of its children (nginx's worker), and of core 0 as a
# whole (every server, the kernel's network work for them included): where each request's time on core 0 goes.
ticks() {
  local pid=$1 total=0 p
  for p in "$pid" $(pgrep -P "$pid" || true); do
    total=$((total + $(awk '{print $14 + $15}' /proc/"$p"/stat 2>/dev/null || echo 0)))
  done
  echo "$total"
}
core0() { awk '$1 == "cpu0" {print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
# User and system CPU time (clock ticks) of a process alone: a front end's system time is its system calls.
user_system() { awk '{print $14, $15}' /proc/"$1"/stat 2>/dev/null || echo "0 0"; }
SYSCALL_EVENTS=""
for call in read readv write writev epoll_wait epoll_pwait epoll_ctl futex sendto recvfrom; do
  SYSCALL_EVENTS+="${SYSCALL_EVENTS:+,}syscalls:sys_enter_$call"
done
if [[ -n "${SYSCALLS:-}" ]]; then
  command -v perf >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-perf >/dev/null; }
fi
# User and system CPU time (clock ticks) of each of a process's threads, summed by thread name with its numbers taken
# out at its end ("sluice-42" and "sluice-43" are one "sluice"): a line "name user system" each.
thread_ticks() {
  local task name
  for task in /proc/"$1"/task/*; do
    name=$(tr -d '\n' <"$task/comm" 2>/dev/null) || continue
    sed 's/^.*) //' "$task/stat" 2>/dev/null | awk -v n="${name// /_}" '{print n, $12, $13}'
  done | awk '{sub(/[-#]?[0-9]+$/, "", $1); u[$1] += $2; s[$1] += $3}
    END {for (g in u) print g, u[g], s[g]}'
}
us_per_request() { awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", (n > 0 ? t * 1e6 / hz / n : 0)}'; }

# cpu_us_per_request: core 0's busy time over the requests made; target_us: the target's own process (for the
# nginx proxy, the one nginx that is also the upstream); upstream_us: the upstream nginx (for Sluice and the plain
# proxy); redis_us: the cluster's redis-server.
echo "round,target,requests_per_s,p99_ms,context_switches_per_request,cpu_us_per_request,target_us,upstream_us,redis_us,target_user_us,target_system_us"
for round in $(seq 1 "$ROUNDS"); do
  for port in "${PORTS[@]}"; do
    before=$(switches "${PIDS[$port]}")
    redis=${REDIS_OF[$port]:-}
    t0=$(ticks "${PIDS[$port]}"); u0=$(ticks "${pids[0]}"); c0=$(core0); r0=$([[ -n $redis ]] && ticks "$redis" || echo 0)
    read -r user0 system0 < <(user_system "${PIDS[$port]}")
    [[ -n "${THREADS:-}" ]] && thread_ticks "${PIDS[$port]}" >/tmp/sluice-bench-threads-before.txt
    if [[ -n "${SYSCALLS:-}" ]]; then
      perf stat -x, -e "$SYSCALL_EVENTS" -p "${PIDS[$port]}" -o /tmp/sluice-bench-syscalls.txt -- sleep "$SECONDS_PER_RUN" &
      perf_pid=$!
    fi
    out=$(load "$port" "$SECONDS_PER_RUN")
    [[ -n "${SYSCALLS:-}" ]] && wait "$perf_pid"
    t1=$(ticks "${PIDS[$port]}"); u1=$(ticks "${pids[0]}"); c1=$(core0); r1=$([[ -n $redis ]] && ticks "$redis" || echo 0)
    read -r user1 system1 < <(user_system "${PIDS[$port]}")
    [[ -n "${THREADS:-}" ]] && thread_ticks "${PIDS[$port]}" >/tmp/sluice-bench-threads-after.txt
    after=$(switches "${PIDS[$port]}")
    requests=$(awk '/requests in/ {print $1}' <<<"$out")
    cs=$(awk -v d=$((after - before)) -v n="$requests" 'BEGIN {printf "%.2f", (n > 0 ? d / n : 0)}')
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub("us","",v); v=v/1000} else if (v ~ /ms$/) {sub("ms","",v)} else if (v ~ /s$/) {sub("s","",v); v=v*1000}; print v}' <<<"$out")
    non2xx=$(awk '/Non-2xx/ {print $5}' <<<"$out")
    REQUESTS[$port]=$((${REQUESTS[$port]:-0} + requests))
    upstream=$([[ ${PIDS[$port]} == "${pids[0]}" ]] && echo 0 || echo $((u1 - u0)))
    cpu="$(us_per_request $((c1 - c0)) "$requests"),$(us_per_request $((t1 - t0)) "$requests")"
    cpu="$cpu,$(us_per_request "$upstream" "$requests"),$(us_per_request $((r1 - r0)) "$requests")"
    cpu="$cpu,$(us_per_request $((user1 - user0)) "$requests"),$(us_per_request $((system1 - system0)) "$requests")"
    echo "$round,${NAMES[$port]},$rps,$p99,$cs,$cpu${non2xx:+,non-2xx=$non2xx}"
    if [[ -n "${THREADS:-}" ]]; then
      # a thread that ended during the run takes its time with it: short-lived threads are missed
      awk -v n="$requests" -v hz="$(getconf CLK_TCK)" 'NR == FNR {u[$1] = $2; s[$1] = $3; next}
        n > 0 && $2 + $3 - u[$1] - s[$1] > 0 {printf "%.2f %s %.1f/%.1f\n", ($2 + $3 - u[$1] - s[$1]) * 1e6 / hz / n,
          $1, ($2 - u[$1]) * 1e6 / hz / n, ($3 - s[$1]) * 1e6 / hz / n}' \
        /tmp/sluice-bench-threads-before.txt /tmp/sluice-bench-threads-after.txt | sort -rn |
        awk '{each = each sprintf(" %s %s", $2, $3)} END {printf "  CPU us per request by thread, user/system:%s\n", each}'
    fi
    if [[ -n "${SYSCALLS:-}" ]]; then
      # perf -x, lines: count,unit,event,...; the nginx targets' workers are children, not counted here
      awk -F, -v n="$requests" 'n > 0 && $1 + 0 > 0 {sub("syscalls:sys_enter_", "", $3); all += $1; each = each sprintf(" %s %.2f", $3, $1 / n)}
        END {if (n > 0) printf "  system calls per request: %.2f (%s )\n", all / n, each}' /tmp/sluice-bench-syscalls.txt
    fi
  done
done
for port in "${!REDIS_PORT[@]}"; do
  [[ -n ${REQUESTS[$port]:-} ]] || continue
  # Every Redis command the cluster node sent during the measured runs (probes and heartbeats included) over the
  # requests wrk made of it meanwhile.
  # (INFO commandstats also counts the commands scripts run inside Redis: only commands never run inside a script
  # are summed; the policy follower's catch-up reads, about one a second, are left out.)
  stats=$(redis-cli -p "${REDIS_PORT[$port]}" info commandstats)
  calls=$(awk -F'[:=,]' '/^cmdstat_(fcall|evalsha|eval|ping|script|function|xread):/ {s += $3} END {print s + 0}' \
    <<<"$stats")
  awk -v c="$calls" -v n="${REQUESTS[$port]}" -v name="${NAMES[$port]}" \
    'BEGIN {printf "%s: %d Redis commands for %d requests: %.3f per request\n", name, c, n, (n > 0 ? c / n : 0)}'
  # Redis's own time in the scripts (usec of every FCALL and EVALSHA, admissions and releases), per request made.
  awk -F'[:=,]' -v n="${REQUESTS[$port]}" -v name="${NAMES[$port]}" '/^cmdstat_(fcall|evalsha):/ {
    calls += $3; usec += $5
  } END {
    printf "%s: scripts (FCALL, EVALSHA) %d calls, %.1f us each, %.1f us of script per request\n", name, calls,
      (calls > 0 ? usec / calls : 0), (n > 0 ? usec / n : 0)
  }' <<<"$stats"
done

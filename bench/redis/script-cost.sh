#!/usr/bin/env bash
# Redis's cost per admission of two versions of client-admit.lua, in one redis-server, interleaved (A B A B ...):
# the same calls (bench/redis/admit-calls.py: CLIENTS clients, BATCH requests and the last call's releases per call)
# replayed by redis-cli --pipe into an emptied Redis for each run, after as many calls again that make the clients'
# keys. Only Redis's side of an admission changes between two revisions' scripts: no node, no network in between.
#   bench/redis/script-cost.sh REV_A REV_B [ROUNDS] [CALLS] [CLIENTS]     (defaults 2 rounds, 1,000 calls, 1,000)
# By default Redis runs under valgrind (callgrind) and the figure is instructions per request: the same for the same
# scripts and calls whatever else the machine does, where CPU time on this shared machine drifts by a third from one
# run to the next. CPU=1 runs Redis natively and gives its CPU time per request (/proc) instead; then use more rounds.
# PROFILE_DIR=dir keeps each measured run's callgrind dump there, for callgrind_annotate (where the instructions go).
# RATE=n runs the scripts on a simulated clock instead of Redis's: n requests per second of it (each client then comes
# RATE / CLIENTS times a second), the same for both revisions and whatever the replay's speed, so the counts repeat.
# BATCH=n sends n requests per call instead of 32 (the front-end harness's calls carry about 9): what a call costs
# whatever its size weighs more in a smaller one.
# COMMANDS=1 prints, on stderr, the commands each measured run had Redis execute per request (the call's own EVALSHA
# among them).
# A revision's script is what RedisClientStateStore loads there: the libraries its LuaScript.load("client-admit", ...)
# names, in that order, then client-admit.lua; where it is LuaScript.loadFunction, it runs as the node runs it, a Redis
# function (that revision's function-library.lua around it, FUNCTION LOAD, then FCALL).
set -euo pipefail
cd "$(dirname "$0")/../.."
A=${1:?revision A}; B=${2:?revision B}; ROUNDS=${3:-2}; CALLS=${4:-1000}; CLIENTS=${5:-1000}; BATCH=${BATCH:-32}
command -v valgrind >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
WORK=$(mktemp -d); PORT=19479
cleanup() { redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
dir=embedded-server/src/main/resources/io/sluice/server/cluster
load_of() { # how revision $1 loads the client-admit script: LuaScript.load(...) or LuaScript.loadFunction(...)
  git show "$1:embedded-server/src/main/java/io/sluice/server/cluster/RedisClientStateStore.java" \
    | tr -d '\n' | grep -o 'LuaScript.load[A-Za-z]*("client-admit"[^)]*)'
}
script_of() { # the client-admit script's text at revision $1
  local load libraries
  load=$(load_of "$1")
  libraries=$(grep -o '"[a-z-]*"' <<<"$load" | tr -d '"' | tail -n +2)
  for library in $libraries; do git show "$1:$dir/$library.lua"; echo; done
  git show "$1:$dir/client-admit.lua"
}
clocked() { # the script on stdin, on the simulated clock with RATE
  if [[ -n "${RATE:-}" ]]; then
    sed "s/call('TIME')/call('HMGET', 'sluice:bench:clock', 's', 'us')/"
  else
    cat
  fi
}
SERVER=(redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize no --loglevel warning)
if [[ -n "${CPU:-}" ]]; then
  taskset -c 1 "${SERVER[@]}" >/dev/null 2>&1 &
else
  (cd "$WORK" && exec valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" "${SERVER[@]}" \
    >/dev/null 2>&1) &
fi
REDIS=$!
until redis-cli -p "$PORT" ping >/dev/null 2>&1; do sleep 0.2; done
python3 bench/redis/admit-calls.py "$CALLS" "$BATCH" "$CLIENTS" "$WORK/warm.resp" "$WORK/calls.resp" ${RATE:+"$RATE"}
for v in A B; do
  rev=$([[ $v == A ]] && echo "$A" || echo "$B")
  script_of "$rev" | clocked >"$WORK/$v.lua"
  [[ -z "${RATE:-}" ]] || grep -q "sluice:bench:clock" "$WORK/$v.lua" || { echo "no call('TIME') in $rev's script" >&2; exit 1; }
  if [[ $(load_of "$rev") == LuaScript.loadFunction* ]]; then
    name=sluice_$(sha1sum <"$WORK/$v.lua" | cut -c1-40)
    git show "$rev:$dir/function-library.lua" >"$WORK/$v-template.lua"
    python3 -c 'import sys; t, s, n = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
print(t.replace("LIBRARY", n).replace("--SCRIPT--\n", s + "\n"), end="")' \
      "$WORK/$v-template.lua" "$WORK/$v.lua" "$name" >"$WORK/$v-library.lua"
    redis-cli -p "$PORT" -x function load replace <"$WORK/$v-library.lua" >/dev/null
    for part in warm calls; do
      NAME=$name perl -0pe 's/\$7\r\nEVALSHA\r\n\$40\r\nS{40}/"\$5\r\nFCALL\r\n\$" . length($ENV{NAME}) . "\r\n$ENV{NAME}"/ge' \
        "$WORK/$part.resp" >"$WORK/$v-$part.resp"
    done
  else
    sha=$(redis-cli -p "$PORT" -x script load <"$WORK/$v.lua")
    for part in warm calls; do
      sed "s/SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS/$sha/" "$WORK/$part.resp" >"$WORK/$v-$part.resp"
    done
  fi
done
replay() { # the calls in file $1, every answer checked
  local result
  result=$(redis-cli -p "$PORT" --pipe <"$1" 2>&1 | tail -1)
  [[ $result == *"errors: 0"* ]] || { echo "redis-cli: $result" >&2; exit 1; }
}
cpu() { awk '{print $14 + $15}' "/proc/$REDIS/stat"; } # user + system, in clock ticks
instructions() { # the instructions counted since the last call, from callgrind's dump
  callgrind_control -d "$1" "$REDIS" >/dev/null 2>&1
  grep -h -m1 '^summary:' "$(ls -t "$WORK"/callgrind.out.* | head -1)" | awk '{print $2}'
}
requests=$((CALLS * BATCH))
commands_per_request() { # the commands the measured calls ran, per request, most first (INFO commandstats)
  redis-cli -p "$PORT" info commandstats | tr -d '\r' | grep '^cmdstat_' \
    | sed 's/^cmdstat_\([^:]*\):calls=\([0-9]*\).*/\2 \1/' | sort -rn \
    | awk -v n="$requests" '{printf "  %s %.3f", $2, $1 / n} END {print ""}'
}
echo "round,version,revision,$([[ -n "${CPU:-}" ]] && echo redis_cpu_us_per_request || echo redis_instructions_per_request)"
for round in $(seq "$ROUNDS"); do
  for v in A B; do
    rev=$([[ $v == A ]] && echo "$A" || echo "$B")
    redis-cli -p "$PORT" flushall >/dev/null
    replay "$WORK/$v-warm.resp"
    redis-cli -p "$PORT" config resetstat >/dev/null
    if [[ -n "${CPU:-}" ]]; then
      before=$(cpu)
      replay "$WORK/$v-calls.resp"
      figure=$(awk -v t=$(($(cpu) - before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
        'BEGIN {printf "%.2f", t * 1e6 / hz / n}')
    else
      instructions "warm-$v$round" >/dev/null
      replay "$WORK/$v-calls.resp"
      figure=$(($(instructions "$v$round") / requests))
      [[ -z "${PROFILE_DIR:-}" ]] || cp "$(ls -t "$WORK"/callgrind.out.* | head -1)" "$PROFILE_DIR/$v$round.callgrind"
    fi
    echo "$round,$v,$rev,$figure"
    [[ -z "${COMMANDS:-}" ]] || commands_per_request >&2
  done
done

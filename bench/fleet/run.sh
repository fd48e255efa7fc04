#!/usr/bin/env bash
# Issue 46's scraper-fleet benchmark (io.sluice.benchmarks.fleet.BrowserFleetRun), RUNS times in a row, then the
# median and range of each figure over the runs (io.sluice.benchmarks.fleet.FleetSummary):
#   bench/fleet/run.sh [RUNS] [BrowserFleetRun options...]
# e.g. bench/fleet/run.sh 2; bench/fleet/run.sh 1 --person java --quiet 30 --attack 30 --solving 30
# Each run: a site of about 80 pages/s, a Sluice with the default policy before it, a person (headless Chromium, or
# --person java) loading a page and its 14 assets every 3 s; a quiet minute, then the fleet of 1,000 addresses
# (127.1.0-19.1-50) as a plain HTTP client, solving with one pass per /24, solving with a pass per address.
# It prints the commit, the machine's cores and load (the machine is shared: say how loaded it was), each run's
# report, and keeps the outputs in OUT (default /tmp/sluice-fleet-runs).
# JAVA_OPTS goes to the JVM (site, Sluice and the fleet share it; Chromium is its child).
# TASKSET="taskset -c 1" runs it all (Chromium too) on the cores named; by default none: on a shared 2-core machine
# pinning only halves what each part gets without keeping anyone else off its core.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-1}
shift || true
OUT=${OUT:-/tmp/sluice-fleet-runs}
read -r -a JVM <<<"${JAVA_OPTS:-}"
read -r -a PIN <<<"${TASKSET:-}"
JAR=benchmarks/target/benchmarks.jar
# checkstyle is skipped: a style finding elsewhere in the tree must not stop a measurement
[[ -f $JAR ]] || ./mvnw -q -B -pl benchmarks -am package -DskipTests -Dcheckstyle.skip
[[ -x /usr/bin/chromium ]] || [[ " $* " == *" --person java "* ]] || {
  echo "no /usr/bin/chromium: install Debian's chromium, or pass --person java" >&2; exit 1; }
mkdir -p "$OUT"
dirty=$(git diff --quiet HEAD -- . 2>/dev/null && echo "" || echo " (uncommitted changes)")
echo "commit $(git rev-parse --short HEAD)$dirty; $(nproc) cores; $(uptime)"
files=()
for run in $(seq 1 "$RUNS"); do
  file="$OUT/run-$run.txt"
  echo "== run $run of $RUNS, $(date -u +%FT%TZ), $(uptime)"
  "${PIN[@]}" java "${JVM[@]}" -cp "$JAR" io.sluice.benchmarks.fleet.BrowserFleetRun "$@" 2>&1 \
    | grep -v -E '^\[[^]]*\] (INFO|DEBUG) |^\s*at ' | tee "$file"
  files+=("$file")
done
echo "== $(date -u +%FT%TZ), $(uptime)"
java -cp "$JAR" io.sluice.benchmarks.fleet.FleetSummary "${files[@]}"

#!/usr/bin/env bash
# Issue 47's console benchmark (io.sluice.console.bench.ConsoleUpdateCost, in console-app's test sources): the whole
# console at 1366x768 under Monocle's headless screen, fed the admin API's snapshots of a 1,000-address fleet at
# 5,000 requests/s and, in alternate blocks, of a quiet day; per update, the JavaFX thread's work and a render.
#   bench/console/run.sh [BLOCKS]     (default 10 blocks of 30 updates per load and tab)
# TASKSET="taskset -c 1" pins it. It prints the commit and the machine's load first: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
read -r -a PIN <<<"${TASKSET:-}"
DEP_PLUGIN=$(sed -n 's:.*<dependency.plugin.version>\(.*\)</dependency.plugin.version>.*:\1:p' pom.xml)
# checkstyle is skipped: a style finding elsewhere in the tree must not stop a measurement
# one reactor run, so the other modules' classes are on the classpath as built (nothing installed)
./mvnw -q -B -pl console-app -am test-compile org.apache.maven.plugins:maven-dependency-plugin:${DEP_PLUGIN}:build-classpath -Dcheckstyle.skip -Djacoco.skip \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath
dirty=$(git diff --quiet HEAD -- . 2>/dev/null && echo "" || echo " (uncommitted changes)")
echo "commit $(git rev-parse --short HEAD)$dirty; $(nproc) cores; $(uptime)"
"${PIN[@]}" java -Dglass.platform=Monocle -Dmonocle.platform=Headless -Dprism.order=sw \
  -Dheadless.geometry=1920x1200-32 -Djava.awt.headless=true \
  -cp "console-app/target/test-classes:console-app/target/classes:$(cat console-app/target/bench.classpath)" \
  io.sluice.console.bench.ConsoleUpdateCost "$@" 2>&1 | grep -v -E '^\[[^]]*\] (INFO|DEBUG) '
echo "$(date -u +%FT%TZ), $(uptime)"

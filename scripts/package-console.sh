#!/usr/bin/env bash
# Builds a native package of the Sluice console with jpackage: an app image (a folder with its own Java
# runtime and a launcher, runnable without Maven or a JDK), and a .deb where dpkg-deb and fakeroot exist.
#
#   scripts/package-console.sh                 app image, and a .deb on Debian/Ubuntu
#   scripts/package-console.sh --app-image     the app image only
#   scripts/package-console.sh --check         then check the launcher: --version exits 0, and the
#                                              window starts and stays up (under xvfb-run when there is
#                                              no display)
#
# Output in console-app/target/package/: sluice-console/ (the app image: bin/sluice-console) and
# sluice-console_VERSION_ARCH.deb (installs to /opt/sluice-console, with a desktop menu entry).
# JAVA_HOME selects the JDK whose jpackage and runtime are used (17 or newer).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

deb=auto check=false
for arg in "$@"; do
  case "$arg" in
    --app-image) deb=no ;;
    --deb) deb=yes ;;
    --check) check=true ;;
    *) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done

BIN="${JAVA_HOME:+$JAVA_HOME/bin/}"
command -v "${BIN}jpackage" >/dev/null || { echo "package-console: jpackage not found (a JDK 17+ has it; set JAVA_HOME)" >&2; exit 1; }
TARGET=console-app/target
OUT="$TARGET/package"
JAR="$TARGET/sluice-console.jar"

# Build the console and copy its libraries when missing or older than the sources.
if [[ ! -f "$JAR" || ! -d "$TARGET/lib" ]] \
    || [[ -n "$(find pom.xml */pom.xml */src/main -newer "$JAR" -print -quit 2>/dev/null)" ]]; then
  echo "package-console: building the console (tests skipped) ..." >&2
  ./mvnw -B -q -DskipTests -pl console-app -am package >&2
fi

# jpackage wants a numeric version: 0.1.0-SNAPSHOT -> 0.1.0.
version="$(sed -n 's:.*<version>\([0-9][0-9.]*\).*</version>.*:\1:p' console-app/pom.xml | head -1)"

# Stage: JavaFX's platform jars (modules, with their native code) go into the runtime image; everything else
# runs from the class path, as ./sluice runs it.
stage="$OUT/stage"
rm -rf "$OUT"
mkdir -p "$stage/input" "$stage/javafx"
cp "$JAR" "$stage/input/"
for jar in "$TARGET"/lib/*.jar; do
  case "$(basename "$jar")" in
    javafx-*-[0-9]*-*.jar) cp "$jar" "$stage/javafx/" ;;
    javafx-*) ;;
    *) cp "$jar" "$stage/input/" ;;
  esac
done

# The JDK modules the console and its libraries use (jdeps --print-module-deps over target/lib), plus the
# ones found only at run time: jdk.crypto.ec (TLS with EC certificates, the admin listener's self-signed
# kind) and jdk.localedata (dates in the operator's language).
modules=javafx.controls,javafx.fxml,java.base,java.desktop,java.logging,java.management,java.naming,java.net.http
modules+=,java.scripting,java.security.jgss,java.sql,jdk.jfr,jdk.net,jdk.unsupported,jdk.localedata
if "${BIN}java" --list-modules | grep -q '^jdk.crypto.ec@'; then
  modules+=,jdk.crypto.ec
fi
feature="$("${BIN}java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
java_options=(--java-options "-Xmx1g")
if (( feature >= 24 )); then
  # JavaFX 21 uses JNI and sun.misc.Unsafe; JDK 24+ warns unless told it may.
  java_options+=(--java-options "--enable-native-access=javafx.graphics"
                 --java-options "--sun-misc-unsafe-memory-access=allow")
fi

echo "package-console: app image (jpackage from JDK $feature) ..." >&2
"${BIN}jpackage" --type app-image --dest "$OUT" --name sluice-console --app-version "$version" \
  --vendor "Sluice" --description "Sluice console: live throttling for a web site, for the people on call" \
  --input "$stage/input" --main-jar sluice-console.jar --main-class io.sluice.console.ConsoleLauncher \
  --module-path "$stage/javafx" --add-modules "$modules" \
  --jlink-options "--strip-debug --no-header-files --no-man-pages --strip-native-commands" \
  "${java_options[@]}"
echo "package-console: $OUT/sluice-console/bin/sluice-console" >&2

if [[ "$deb" == auto ]]; then
  if command -v dpkg-deb >/dev/null && command -v fakeroot >/dev/null; then deb=yes; else deb=no; fi
fi
if [[ "$deb" == yes ]]; then
  echo "package-console: .deb ..." >&2
  "${BIN}jpackage" --type deb --dest "$OUT" --app-image "$OUT/sluice-console" --name sluice-console \
    --app-version "$version" --vendor "Sluice" \
    --description "Sluice console: live throttling for a web site, for the people on call" \
    --linux-package-name sluice-console --linux-menu-group "Network;Monitor" --linux-shortcut \
    --linux-app-category net --linux-deb-maintainer "sluice@localhost"
  ls "$OUT"/*.deb >&2
fi

if [[ "$check" == true ]]; then
  launcher="$OUT/sluice-console/bin/sluice-console"
  printed="$("$launcher" --version)"
  echo "package-console: $printed" >&2
  [[ "$printed" == "sluice-console $version"* ]] || { echo "package-console: unexpected --version: $printed" >&2; exit 1; }
  # The window: a fresh home (no remembered server: the connect form), a few seconds up without an error.
  home="$(mktemp -d)"
  log="$home/console.log"
  xvfb=""
  if [[ -z "${DISPLAY:-}" ]]; then
    command -v Xvfb >/dev/null || { echo "package-console: no display and no Xvfb: window not checked" >&2; exit 0; }
    Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$home/display" 2>/dev/null &
    xvfb=$!
    for _ in $(seq 50); do [[ -s "$home/display" ]] && break; sleep 0.1; done
    export DISPLAY=":$(cat "$home/display")"
  fi
  HOME="$home" "$launcher" >"$log" 2>&1 &
  pid=$!
  # Up to 30 s for its window (when xwininfo, from x11-utils, can see it), then still running.
  window=unseen
  for _ in $(seq 30); do
    sleep 1
    kill -0 "$pid" 2>/dev/null || break
    # grep without -q: under pipefail, xwininfo killed by SIGPIPE when grep -q stops early fails the check
    if command -v xwininfo >/dev/null && xwininfo -root -tree 2>/dev/null | grep '"Sluice console"' >/dev/null; then
      window=shown; break
    fi
  done
  alive=true
  kill -0 "$pid" 2>/dev/null || alive=false
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [[ -z "$xvfb" ]] || { kill "$xvfb"; wait "$xvfb" 2>/dev/null || true; }
  if [[ "$alive" != true ]]; then
    echo "package-console: the console exited at start:" >&2; cat "$log" >&2; exit 1
  fi
  if grep -q 'Exception' "$log"; then
    echo "package-console: the console logged an error at start:" >&2; cat "$log" >&2; exit 1
  fi
  if [[ "$window" != shown ]] && command -v xwininfo >/dev/null; then
    echo "package-console: the console's window did not appear within 30 s:" >&2; cat "$log" >&2; exit 1
  fi
  rm -rf "$home"
  echo "package-console: the console started from the package (window $window) and stayed up" >&2
fi

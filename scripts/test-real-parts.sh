#!/usr/bin/env bash
# The second tier of tests (README, "Development"): those tagged real-parts, which need real parts besides a JDK.
#
#   scripts/test-real-parts.sh             installs what is missing (Debian, Ubuntu), then ./mvnw -Preal-parts verify
#   scripts/test-real-parts.sh --install   installs what is missing, and runs nothing
#
# Arguments after the options go to Maven (e.g. -Dtest='RedisStoreSpecTest'). The parts, by Debian package:
# redis-server (the cluster tests start a redis-server, or a Redis Cluster, on free ports), nginx (the front end's
# differential test), chromium (the browser check in a real browser), prometheus (the alert rules with promtool and
# a real Prometheus), systemd (systemd-analyze checks the server package's unit; nothing is booted), xvfb and
# x11-utils (the console package's window check in .ci/run), and the native libraries and font headless JavaFX
# draws with. On Debian and Ubuntu the missing ones are installed with apt-get (sudo when not root); elsewhere the
# script names them and stops.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

install_only=no
if [[ "${1:-}" == "--install" ]]; then
  install_only=yes
  shift
elif [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi

packages=(redis-server nginx chromium prometheus systemd xvfb x11-utils
          libpangoft2-1.0-0 libfontconfig1 libfreetype6 fonts-dejavu-core libgtk-3-0 libxtst6)

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  echo "test-real-parts: not Debian or Ubuntu; install these (Debian names) yourself, then run" >&2
  echo "  ./mvnw -Preal-parts verify" >&2
  printf '  %s\n' "${packages[@]}" >&2
  exit 1
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "test-real-parts: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[[ $install_only == yes ]] && exit 0

./mvnw -Preal-parts verify "$@"

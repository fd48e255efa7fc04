#!/usr/bin/env bash
# Builds the server's Debian package with dpkg-deb (docs/manual/installing-the-server.md):
#
#   scripts/package-server.sh      embedded-server/target/sluice-server_VERSION_all.deb, its path on stdout
#
# The server jar (embedded-server/target/sluice-server.jar) is built first when missing. The package is
# architecture `all`, needing a Java 17+ runtime from the distribution: the jar runs the same on every
# machine, and the distribution's runtime gets its security updates with the rest of the system, which a
# runtime bundled in the package would not. Its files come from ops/package/: the launcher (sluice-server),
# the unit (sluice.service), /etc/default/sluice (sluice.default), /etc/sluice/sluice.conf (sluice.conf),
# /etc/logrotate.d/sluice (sluice.logrotate) and the maintainer scripts (postinst, prerm, postrm).
# Needs dpkg-deb (Debian, Ubuntu); no root and no fakeroot: the files are owned by root in the package.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if (( $# )); then
  sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
if ! command -v dpkg-deb >/dev/null; then
  echo "package-server: dpkg-deb not found (Debian/Ubuntu: apt-get install dpkg)" >&2
  exit 1
fi

TARGET=embedded-server/target
JAR="$TARGET/sluice-server.jar"
OPS=ops/package
if [[ ! -f "$JAR" ]]; then
  echo "package-server: building the server jar (tests skipped) ..." >&2
  ./mvnw -B -q -o -DskipTests -pl embedded-server -am package >&2 \
    || ./mvnw -B -q -DskipTests -pl embedded-server -am package >&2
fi
for file in sluice-server sluice.service sluice.default sluice.conf sluice.logrotate postinst prerm postrm; do
  [[ -f "$OPS/$file" ]] || { echo "package-server: $OPS/$file is missing" >&2; exit 1; }
done

# Maven's 0.1.0-SNAPSHOT is Debian's 0.1.0~SNAPSHOT: the tilde sorts before 0.1.0, as a snapshot comes before
# its release.
maven_version="$(sed -n 's:.*<version>\([^<]*\)</version>.*:\1:p' embedded-server/pom.xml | head -1)"
version="${maven_version//-/\~}"
deb="$TARGET/sluice-server_${version}_all.deb"

# Stage the installed tree. Modes are set here; owners are root in the package, and postinst hands
# /var/lib/sluice, /var/log/sluice and the configuration files to the sluice user it creates.
umask 022
stage="$TARGET/package-server"
root="$stage/root"
rm -rf "$stage"
install -D -m 0644 "$JAR" "$root/usr/share/sluice/sluice-server.jar"
install -D -m 0755 "$OPS/sluice-server" "$root/usr/bin/sluice-server"
install -D -m 0644 "$OPS/sluice.service" "$root/lib/systemd/system/sluice.service"
install -D -m 0640 "$OPS/sluice.conf" "$root/etc/sluice/sluice.conf"
install -D -m 0640 "$OPS/sluice.default" "$root/etc/default/sluice"
install -D -m 0644 "$OPS/sluice.logrotate" "$root/etc/logrotate.d/sluice"
install -D -m 0644 docs/manual/installing-the-server.md "$root/usr/share/doc/sluice-server/README.md"
install -d -m 0700 "$root/var/lib/sluice"
install -d -m 0750 "$root/var/log/sluice"

installed_kib="$(du -sk "$root" | cut -f1)"
install -d -m 0755 "$root/DEBIAN"
install -m 0755 "$OPS/postinst" "$OPS/prerm" "$OPS/postrm" "$root/DEBIAN/"
printf '%s\n' /etc/sluice/sluice.conf /etc/default/sluice /etc/logrotate.d/sluice > "$root/DEBIAN/conffiles"
cat > "$root/DEBIAN/control" <<CONTROL
Package: sluice-server
Version: $version
Architecture: all
Maintainer: Sluice <sluice@localhost>
Installed-Size: $installed_kib
Depends: default-jre-headless (>= 2:1.17) | java17-runtime-headless, adduser
Recommends: logrotate
Section: net
Priority: optional
Description: Sluice front end: a throttling reverse proxy with an admin API
 Sluice sits in front of a web site and decides, request by request, who is
 served now, who waits and who is refused: browsers first, crawlers paced,
 abusive clients banned. This package runs it as the systemd service
 sluice.service, as the sluice system user, configured in
 /etc/sluice/sluice.conf, with its state in /var/lib/sluice and its access
 log in /var/log/sluice.
CONTROL

rm -f "$TARGET"/sluice-server_*_all.deb
# The jar is already compressed: gzip at its fastest keeps the build quick for as good a size as xz's.
dpkg-deb --root-owner-group -Zgzip -z1 --build "$root" "$deb" >&2
echo "$deb"

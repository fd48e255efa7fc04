#!/usr/bin/env bash
# Updates the bundled crawler list (crawler-user-agents, MIT, published on npm) and its licence.
#
#   scripts/update-crawler-list.sh            # newest published version
#   scripts/update-crawler-list.sh 1.60.0     # a given version
#
# Then run the engine tests (every entry's instances must still be matched, fast path = naive scan)
# and commit the two files. Needs npm and python3 (to check the file is a JSON array).
set -euo pipefail

version="${1:-latest}"
repo_root="$(cd "$(dirname "$0")/.." && pwd)"
target="$repo_root/throttle-engine/src/main/resources/io/sluice/engine/classify"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$work"
npm pack --silent "crawler-user-agents@$version" >/dev/null
tar -xzf crawler-user-agents-*.tgz
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, list) and d, "not a list"; print(len(d), "entries")' \
    package/crawler-user-agents.json
published="$(python3 -c 'import json; print(json.load(open("package/package.json"))["version"])')"

# write beside the target, then rename: a reader never sees half a file
cp package/crawler-user-agents.json "$target/.crawler-user-agents.json.tmp"
cp package/LICENSE "$target/.crawler-user-agents.LICENSE.tmp"
mv "$target/.crawler-user-agents.json.tmp" "$target/crawler-user-agents.json"
mv "$target/.crawler-user-agents.LICENSE.tmp" "$target/crawler-user-agents.LICENSE"
echo "crawler-user-agents $published copied to $target"
echo "next: ./mvnw -q -B -pl throttle-engine verify"

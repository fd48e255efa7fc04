#!/usr/bin/env bash
# Updates the bundled crawler list (crawler-user-agents, MIT, published on npm) and its licence, and the
# crawlers' published address ranges (crawler-ranges.json, downloaded from each crawler operator's own URL).
#
#   scripts/update-crawler-list.sh            # newest published version of the list
#   scripts/update-crawler-list.sh 1.60.0     # a given version
#   RANGES_FROM=DIR scripts/update-crawler-list.sh   # ranges from files already downloaded into DIR
#                                                    # (each named by its URL's last path segment)
#
# Then run the engine tests (every entry's instances must still be matched, fast path = naive scan; every
# name in crawler-ranges.json must still be a name of the list) and commit the files. Needs npm and python3.
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

# the ranges first, on a copy: if a download fails, nothing is replaced
cp "$target/crawler-ranges.json" "$work/crawler-ranges.json"
if [ -n "${RANGES_FROM:-}" ]; then
    python3 "$repo_root/scripts/update-crawler-ranges.py" "$work/crawler-ranges.json" --from "$RANGES_FROM"
else
    python3 "$repo_root/scripts/update-crawler-ranges.py" "$work/crawler-ranges.json"
fi

# write beside the target, then rename: a reader never sees half a file
cp package/crawler-user-agents.json "$target/.crawler-user-agents.json.tmp"
cp package/LICENSE "$target/.crawler-user-agents.LICENSE.tmp"
cp "$work/crawler-ranges.json" "$target/.crawler-ranges.json.tmp"
mv "$target/.crawler-user-agents.json.tmp" "$target/crawler-user-agents.json"
mv "$target/.crawler-user-agents.LICENSE.tmp" "$target/crawler-user-agents.LICENSE"
mv "$target/.crawler-ranges.json.tmp" "$target/crawler-ranges.json"
echo "crawler-user-agents $published and the crawlers' address ranges copied to $target"
# categories (docs/manual/classify.md): an AI assistant the list tags only ai-crawler belongs in Category.ASSISTANTS
python3 -c 'import json,sys
for e in json.load(open(sys.argv[1])):
    tags = e.get("tags") or []
    if "ai-crawler" in tags and "search-engine" not in tags:
        print("ai-crawler (ai-training unless listed in Category.ASSISTANTS):", e["pattern"])' \
    "$target/crawler-user-agents.json"
echo "next: ./mvnw -q -B -pl throttle-engine verify"

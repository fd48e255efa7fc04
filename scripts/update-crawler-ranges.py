#!/usr/bin/env python3
"""Refreshes the crawlers' published address ranges bundled with Sluice.

The resource (throttle-engine/src/main/resources/io/sluice/engine/classify/crawler-ranges.json) is its own
input: each entry names the crawler-list entries it verifies, its reverse-DNS domains and the URLs where the
crawler's operator publishes its addresses. This script downloads every URL, replaces each entry's prefixes
(merged, sorted) and writes the file back whole, or changes nothing when any download or parse fails.

    update-crawler-ranges.py RESOURCE              # download from the publishers' URLs
    update-crawler-ranges.py RESOURCE --from DIR   # read each URL's file from DIR (named by the URL's last
                                                   # path segment), for a machine that cannot reach them

Every block is checked: one wider than /8 (IPv4) or /16 (IPv6), such as a /0 from a broken or hostile source, would
make every address a verified crawler, so it refuses the whole update (nothing is changed), as Sluice itself refuses
such a file (CrawlerRanges).

Formats: "prefixes" is the form Google, Bing, Apple, OpenAI, Common Crawl, DuckDuckGo, Perplexity and Anthropic
use ({"prefixes": [{"ipv4Prefix": ...} | {"ipv6Prefix": ...}]}); "ips" is Ahrefs' ({"ips": [{"ip_address": ...}]}).
"""
import datetime
import ipaddress
import json
import os
import sys
import urllib.request

TIMEOUT_SECONDS = 30
MAX_BYTES = 16 * 1024 * 1024
# the widest block a crawler's ranges may hold, as Sluice checks it (CrawlerRanges.MIN_IPV4_PREFIX, MIN_IPV6_PREFIX)
WIDEST_PREFIX = {4: 8, 6: 16}


def read_source(url, from_dir):
    if from_dir is not None:
        name = url.rstrip("/").rsplit("/", 1)[-1]
        with open(os.path.join(from_dir, name), "rb") as f:
            return f.read(MAX_BYTES + 1)
    request = urllib.request.Request(url, headers={"User-Agent": "sluice-update-crawler-ranges"})
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
        return response.read(MAX_BYTES + 1)


def networks(url, fmt, body):
    if len(body) > MAX_BYTES:
        raise ValueError(f"{url}: larger than {MAX_BYTES} bytes")
    data = json.loads(body)
    if fmt == "prefixes":
        texts = [p.get("ipv4Prefix") or p.get("ipv6Prefix") for p in data.get("prefixes") or []]
    elif fmt == "ips":
        texts = [p.get("ip_address") for p in data.get("ips") or []]
    else:
        raise ValueError(f"{url}: unknown format {fmt!r}")
    out = [ipaddress.ip_network(t.strip(), strict=False) for t in texts if t]
    if not out:
        raise ValueError(f"{url}: no addresses found (format {fmt!r})")
    check_widths(url, out)
    return out, data.get("creationTime")


def check_widths(where, nets):
    for net in nets:
        widest = WIDEST_PREFIX[net.version]
        if net.prefixlen < widest:
            raise ValueError(f"{where}: {net} is wider than /{widest}, the widest block a crawler's ranges may hold")


def merged(nets):
    v4 = ipaddress.collapse_addresses(n for n in nets if n.version == 4)
    v6 = ipaddress.collapse_addresses(n for n in nets if n.version == 6)
    return [str(n) for n in list(v4) + list(v6)]


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--from"):
        sys.exit(__doc__)
    resource = argv[1]
    from_dir = argv[3] if len(argv) == 4 else None
    with open(resource, encoding="utf-8") as f:
        document = json.load(f)
    today = datetime.date.today().isoformat()
    fetched = today if from_dir is None else today + " (from a copy, not the URL)"
    for entry in document["crawlers"]:
        nets = []
        for source in entry.get("sources", []):
            try:
                got, created = networks(source["url"], source["format"], read_source(source["url"], from_dir))
            except (OSError, ValueError) as e:
                sys.exit(f"{entry['operator']}: cannot use {source['url']}: {e}; nothing was changed")
            nets.extend(got)
            source["published"] = created
            source["fetched"] = fetched
        try:
            # merging adjacent blocks could make one wider than the limit: Sluice would refuse the file
            check_widths(entry["operator"] + " (merged)", [ipaddress.ip_network(p) for p in merged(nets)])
        except ValueError as e:
            sys.exit(f"{e}; nothing was changed")
        entry["prefixes"] = merged(nets)
        print(f"{entry['operator']}: {len(entry['prefixes'])} prefixes")
    temporary = resource + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    os.replace(temporary, resource)  # a reader never sees half a file


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/env python3
"""client-admit.lua calls as Redis's protocol, for bench/redis/script-cost.sh: twice CALLS calls of BATCH requests
each, from CLIENTS clients (one user agent per address) picked at random with a fixed seed, each call giving back the
leases of the call before it, as a busy node's calls do. The first CALLS go to WARM (they make the clients' keys), the
next CALLS to MEASURED. The script is named by forty S (a SHA-1's length), which the caller replaces.
With RATE (requests per second), each call is preceded by an HSET of sluice:bench:clock to a simulated time (s and us
fields) that moves on by BATCH / RATE seconds a call, for a script whose call('TIME') reads that key instead: the
seconds each request falls in are then the same whatever the replay's speed.
Usage: admit-calls.py CALLS BATCH CLIENTS WARM MEASURED [RATE]"""
import random
import sys

calls, batch, clients = (int(arg) for arg in sys.argv[1:4])
warm_path, measured_path = sys.argv[4:6]
rate = float(sys.argv[6]) if len(sys.argv) > 6 else None
START_US = 1_764_000_000 * 1_000_000  # the simulated clock's start (late 2025), in microseconds
# client window s, max hits, route window s (none), route max, address window s, max hits, client in flight, address
# in flight, lease ms, any crawler's gap ms: limits nothing reaches, as in the harness's admit-all policy
LIMITS = ["15", "100000", "0", "0", "15", "100000", "8", "64", "35000", "2000"]
rng = random.Random(29)


def command(out, words):
    out.write(b"*%d\r\n" % len(words))
    for word in words:
        data = word.encode()
        out.write(b"$%d\r\n%s\r\n" % (len(data), data))


previous = []  # (client leases, address leases, lease id) of the call before
lease = 0
with open(warm_path, "wb") as warm, open(measured_path, "wb") as measured:
    for call in range(2 * calls):
        keys, args = [], [str(len(previous))]
        for client_leases, address_leases, lease_id in previous:
            keys += [client_leases, address_leases]
            args.append(lease_id)
        args += ["1"] + LIMITS
        taken = []
        for _ in range(batch):
            n = rng.randrange(clients)
            ip = "10.%d.%d.%d" % (n >> 16 & 255, n >> 8 & 255, n & 255)
            tag = "sluice:{%s}:" % ip
            client = "%s:5c1d9e0b4f7a2e61" % ip
            lease += 1
            lease_id = "bench:0001:%d" % lease
            keys += [tag + "m:" + client, tag + "m", tag + "l:" + client, tag + "l"]
            args += ["1", "1", lease_id, "-1"]
            taken.append((tag + "l:" + client, tag + "l", lease_id))
        out = warm if call < calls else measured
        if rate:
            now_us = START_US + int(call * batch * 1_000_000 / rate)
            command(out, ["HSET", "sluice:bench:clock", "s", str(now_us // 1_000_000), "us", str(now_us % 1_000_000)])
        command(out, ["EVALSHA", "S" * 40, str(len(keys))] + keys + args)
        previous = taken

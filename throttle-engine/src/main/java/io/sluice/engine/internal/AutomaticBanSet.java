package io.sluice.engine.internal;

import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The automatic bans in force on this engine that the policy does not hold yet: an offender is refused from the
 * request after its offence, while the policy writer (off the request path) writes, audits and compiles the ban.
 * An entry leaves when a policy holding its ban is installed ({@link #settle}), or after its expiry.
 *
 * <p>Hash lookups only: an exact client by its key, an address by its masked key for each prefix length in use
 * (one or two: escalation bans an address by the policy's per-address prefix), so rule 2 costs the same whatever
 * the number of entries; nothing at all while the set is empty (one volatile read). Bounded by the caller, who
 * counts {@link #size()} against {@code ThrottleEngine.MAX_AUTOMATIC_BANS}.
 */
public final class AutomaticBanSet {

    /** A ban with its expiry in milliseconds. */
    private record Entry(Ban ban, long untilMillis) {
    }

    private final ConcurrentHashMap<ClientKey, Entry> clients = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ClientKey, Entry> addresses = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    /** The prefix lengths of the address entries, IPv4 and IPv6 (copied on write: they almost never change). */
    private volatile int[] ipv4Prefixes = new int[0];
    private volatile int[] ipv6Prefixes = new int[0];

    /** Entries in the set. */
    public int size() {
        return size.get();
    }

    /**
     * Puts {@code ban} in force for {@code key}: a client's key, or an address's ({@link ClientKey#ofAddress}).
     *
     * @return false when the key holds a ban already (nothing changed)
     */
    public boolean add(ClientKey key, Ban ban, long untilMillis) {
        Entry entry = new Entry(ban, untilMillis);
        boolean added = key.isAggregate() ? addresses.putIfAbsent(key, entry) == null
                : clients.putIfAbsent(key, entry) == null;
        if (added) {
            size.incrementAndGet();
            if (key.isAggregate()) {
                remember(key);
            }
        }
        return added;
    }

    private synchronized void remember(ClientKey key) {
        int prefix = key.prefixBits() & 0xFF;
        if (key.address().isIpv4()) {
            ipv4Prefixes = with(ipv4Prefixes, prefix);
        } else {
            ipv6Prefixes = with(ipv6Prefixes, prefix);
        }
    }

    private static int[] with(int[] prefixes, int prefix) {
        for (int known : prefixes) {
            if (known == prefix) {
                return prefixes;
            }
        }
        int[] grown = Arrays.copyOf(prefixes, prefixes.length + 1);
        grown[prefixes.length] = prefix;
        return grown;
    }

    /** Rule 2: the ban in force at {@code nowMillis} for the client or its address, or null. */
    public Ban find(IpAddress address, ClientKey key, long nowMillis) {
        if (size.get() == 0) {
            return null;
        }
        Entry entry = clients.get(key);
        if (entry != null && nowMillis < entry.untilMillis()) {
            return entry.ban();
        }
        if (addresses.isEmpty()) {
            return null;
        }
        boolean ipv4 = address.isIpv4();
        for (int prefix : ipv4 ? ipv4Prefixes : ipv6Prefixes) {
            Entry network = addresses.get(ClientKey.ofAddress(address, ipv4 ? prefix : 32, ipv4 ? 128 : prefix));
            if (network != null && nowMillis < network.untilMillis()) {
                return network.ban();
            }
        }
        return null;
    }

    /** The bans in the set still in force at {@code nowMillis}. */
    public List<Ban> inForce(long nowMillis) {
        List<Ban> bans = new ArrayList<>();
        for (Entry entry : clients.values()) {
            if (nowMillis < entry.untilMillis()) {
                bans.add(entry.ban());
            }
        }
        for (Entry entry : addresses.values()) {
            if (nowMillis < entry.untilMillis()) {
                bans.add(entry.ban());
            }
        }
        return bans;
    }

    /**
     * {@code installed} is live: entries whose ban it holds (by id, or another ban of the same type and value) are
     * the policy's now, and entries expired at {@code nowMillis} are over; both leave the set.
     */
    public void settle(Policy installed, long nowMillis) {
        if (size.get() == 0) {
            return;
        }
        Set<String> held = new HashSet<>();
        Instant now = Instant.ofEpochMilli(nowMillis);
        for (Ban ban : installed.bans()) {
            held.add(ban.id());
            if (ban.activeAt(now)) { // an expired ban of the same client holds nothing
                held.add(ban.type() + "|" + ban.value());
            }
        }
        settle(clients, held, nowMillis);
        settle(addresses, held, nowMillis);
    }

    private void settle(ConcurrentHashMap<ClientKey, Entry> entries, Set<String> held, long nowMillis) {
        entries.forEach((key, entry) -> {
            Ban ban = entry.ban();
            if ((nowMillis >= entry.untilMillis() || held.contains(ban.id())
                    || held.contains(ban.type() + "|" + ban.value())) && entries.remove(key, entry)) {
                size.decrementAndGet();
            }
        });
    }
}

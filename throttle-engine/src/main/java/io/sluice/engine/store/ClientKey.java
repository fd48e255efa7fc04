package io.sluice.engine.store;

import io.sluice.engine.net.IpAddress;

/**
 * A client's identity: the pair (IP, user agent). Immutable. The client table's own entry
 * ({@code ClientState}) extends it, so the table holds one object per client and a lookup compares
 * the probe key with the entry itself.
 *
 * <p>The address is held flat (its 128 bits and family in the key itself) and the hash is computed once:
 * a lookup in the client table then reads the key without following a pointer to a separate address
 * object, which in a table of 100,000 clients is one cache miss less per request, and a tracked client
 * costs 40 bytes of key instead of 56 (key + parsed address; about 80 for the address as text).
 */
public class ClientKey {

    private static final byte NONE = 0;
    private static final byte IPV4 = 4;
    private static final byte IPV6 = 6;

    private final long high;
    private final long low;
    private final int hash;
    private final byte family;
    private final String userAgent;

    /**
     * @param address   the resolved client address (null only in tests of the state alone)
     * @param userAgent the user agent, empty when absent
     */
    public ClientKey(IpAddress address, String userAgent) {
        this.userAgent = userAgent;
        if (address == null) {
            this.high = 0;
            this.low = 0;
            this.family = NONE;
        } else {
            this.high = address.high();
            this.low = address.low();
            this.family = address.isIpv4() ? IPV4 : IPV6;
        }
        this.hash = 31 * (address == null ? 0 : address.hashCode()) + (userAgent == null ? 0 : userAgent.hashCode());
    }

    private ClientKey(long high, long low, byte family, String userAgent) {
        this.high = high;
        this.low = low;
        this.family = family;
        this.userAgent = userAgent;
        this.hash = 31 * IpAddress.hash(high, low, family == IPV4) + userAgent.hashCode();
    }

    /**
     * The key of {@code address}'s aggregate: the address cut to its first {@code ipv4Prefix} (IPv4) or
     * {@code ipv6Prefix} (IPv6) bits, with no user agent. Equal to {@code new ClientKey(masked, "")}, made without
     * an intermediate address object (this runs on every request).
     */
    public static ClientKey ofAddress(IpAddress address, int ipv4Prefix, int ipv6Prefix) {
        if (address.isIpv4()) {
            long mask = ipv4Prefix == 0 ? 0 : (0xFFFF_FFFFL << (32 - ipv4Prefix)) & 0xFFFF_FFFFL;
            return new ClientKey(0, address.low() & mask, IPV4, "");
        }
        long highMask = ipv6Prefix >= 64 ? -1L : ipv6Prefix == 0 ? 0 : -1L << (64 - ipv6Prefix);
        long lowMask = ipv6Prefix <= 64 ? 0 : ipv6Prefix == 128 ? -1L : -1L << (128 - ipv6Prefix);
        return new ClientKey(address.high() & highMask, address.low() & lowMask, IPV6, "");
    }

    /** A copy of {@code key}'s identity (for the client state, which carries its own key). */
    protected ClientKey(ClientKey key) {
        this.high = key.high;
        this.low = key.low;
        this.hash = key.hash;
        this.family = key.family;
        this.userAgent = key.userAgent;
    }

    /** The client address (a new object each call: for the snapshot and ban checks, not the hot path). */
    public IpAddress address() {
        return switch (family) {
            case IPV4 -> IpAddress.ofIpv4((int) low);
            case IPV6 -> IpAddress.ofIpv6(high, low);
            default -> null;
        };
    }

    public String userAgent() {
        return userAgent;
    }

    /** The canonical text of the address. */
    public String ip() {
        IpAddress address = address();
        return address == null ? null : address.toString();
    }

    /** Equal to any key (or client state) of the same client. */
    @Override
    public final boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof ClientKey that)) {
            return false;
        }
        return hash == that.hash && low == that.low && high == that.high && family == that.family
                && (userAgent == that.userAgent || userAgent != null && userAgent.equals(that.userAgent));
    }

    @Override
    public final int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "ClientKey[address=" + ip() + ", userAgent=" + userAgent + "]";
    }
}

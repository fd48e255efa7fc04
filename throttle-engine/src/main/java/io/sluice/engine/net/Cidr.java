package io.sluice.engine.net;

/**
 * A block of addresses: a network address and a prefix length ({@code 10.0.0.0/8},
 * {@code 2001:db8::/32}). A bare address is a block of one ({@code /32} or {@code /128}).
 *
 * <p>Decisions, so a ban means what the operator meant:
 * <ul>
 *   <li>Host bits set ({@code 10.1.2.3/8}) is an error, not silently widened: the message proposes
 *       the network ({@code 10.0.0.0/8}). Typing a host with a short prefix is more often a mistake
 *       than a wish to ban 16 million addresses.</li>
 *   <li>An IPv4-mapped block ({@code ::ffff:10.0.0.0/104}) is the IPv4 block ({@code 10.0.0.0/8}),
 *       matching {@link IpAddress}, which reads mapped addresses as IPv4.</li>
 *   <li>IPv4 addresses are matched by IPv4 blocks only: {@code ::/0} is every IPv6 address.</li>
 *   <li>Zone ids are rejected: a block is not tied to an interface.</li>
 * </ul>
 *
 * @param network      the first address of the block (host bits zero)
 * @param prefixLength 0..32 for IPv4, 0..128 for IPv6
 */
public record Cidr(IpAddress network, int prefixLength) {

    public Cidr {
        if (network == null) {
            throw new IllegalArgumentException("CIDR network is missing");
        }
        if (prefixLength < 0 || prefixLength > network.bitLength()) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " is out of range 0-"
                    + network.bitLength() + " for " + network);
        }
        if (!sameBits(network, prefixLength).equals(network)) {
            throw new IllegalArgumentException("host bits are set in " + network + "/" + prefixLength
                    + "; the network is " + sameBits(network, prefixLength) + "/" + prefixLength);
        }
    }

    /**
     * Parses {@code address} or {@code address/prefix}.
     *
     * @throws IllegalArgumentException with a message naming what is wrong
     */
    public static Cidr parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("CIDR is missing");
        }
        String trimmed = text.strip();
        if (trimmed.indexOf('%') >= 0) {
            throw new IllegalArgumentException("zone ids are not allowed in a CIDR: '"
                    + IpAddress.abbreviate(trimmed) + "'");
        }
        int slash = trimmed.indexOf('/');
        String addressText = slash < 0 ? trimmed : trimmed.substring(0, slash);
        IpAddress address = IpAddress.tryParse(addressText);
        if (address == null) {
            throw new IllegalArgumentException("not an IPv4 or IPv6 address: '"
                    + IpAddress.abbreviate(addressText) + "' in CIDR '" + IpAddress.abbreviate(trimmed) + "'");
        }
        boolean writtenAsIpv6 = addressText.indexOf(':') >= 0;
        int writtenBits = writtenAsIpv6 ? 128 : 32;
        int prefix = writtenBits;
        if (slash >= 0) {
            prefix = parsePrefix(trimmed.substring(slash + 1), trimmed);
            if (prefix > writtenBits) {
                throw new IllegalArgumentException("prefix length " + prefix + " is out of range 0-" + writtenBits
                        + " in CIDR '" + IpAddress.abbreviate(trimmed) + "'");
            }
        }
        if (writtenAsIpv6 && address.isIpv4()) {
            // written as ::ffff:a.b.c.d/p; the block is IPv4 only when it lies inside ::ffff:0:0/96
            if (prefix < 96) {
                throw new IllegalArgumentException("an IPv4-mapped block needs a prefix of at least 96: '"
                        + IpAddress.abbreviate(trimmed) + "'");
            }
            prefix -= 96;
        }
        return new Cidr(address, prefix);
    }

    /** The block holding exactly {@code address}. */
    public static Cidr of(IpAddress address) {
        return new Cidr(address, address.bitLength());
    }

    /** True when {@code address} is in this block (always false across address families). */
    public boolean contains(IpAddress address) {
        if (address == null || address.isIpv4() != network.isIpv4()) {
            return false;
        }
        if (network.isIpv4()) {
            long mask = prefixLength == 0 ? 0 : (0xFFFF_FFFFL << (32 - prefixLength)) & 0xFFFF_FFFFL;
            return (address.low() & mask) == network.low();
        }
        return (address.high() & highMask(prefixLength)) == network.high()
                && (address.low() & lowMask(prefixLength)) == network.low();
    }

    /** {@code network/prefix}, with the canonical address text. */
    @Override
    public String toString() {
        return network + "/" + prefixLength;
    }

    static long highMask(int prefixLength) {
        return prefixLength == 0 ? 0 : prefixLength >= 64 ? -1L : -1L << (64 - prefixLength);
    }

    static long lowMask(int prefixLength) {
        return prefixLength <= 64 ? 0 : prefixLength == 128 ? -1L : -1L << (128 - prefixLength);
    }

    /** {@code address} with every bit after the first {@code prefixLength} cleared. */
    static IpAddress sameBits(IpAddress address, int prefixLength) {
        if (address.isIpv4()) {
            long mask = prefixLength == 0 ? 0 : (0xFFFF_FFFFL << (32 - prefixLength)) & 0xFFFF_FFFFL;
            return IpAddress.ofIpv4((int) (address.low() & mask));
        }
        return IpAddress.ofIpv6(address.high() & highMask(prefixLength), address.low() & lowMask(prefixLength));
    }

    private static int parsePrefix(String digits, String whole) {
        if (digits.isEmpty() || digits.length() > 3 || (digits.length() > 1 && digits.charAt(0) == '0')) {
            throw new IllegalArgumentException("bad prefix length '" + IpAddress.abbreviate(digits) + "' in CIDR '"
                    + IpAddress.abbreviate(whole) + "'");
        }
        int value = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("bad prefix length '" + IpAddress.abbreviate(digits)
                        + "' in CIDR '" + IpAddress.abbreviate(whole) + "'");
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}

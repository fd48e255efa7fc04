package io.sluice.engine.net;

/**
 * An IPv4 or IPv6 address parsed from a literal, never from a name: nothing here touches DNS.
 *
 * <p>Parsing is strict. IPv4 is four decimal octets 0-255 without leading zeros ({@code 010.0.0.1}
 * is rejected rather than guessed as octal). IPv6 follows RFC 4291 (hex groups, one {@code ::},
 * an optional dotted IPv4 tail), may be wrapped in brackets, and may carry a zone id
 * ({@code fe80::1%eth0}), which is stripped: a zone names a local interface, not a different client.
 *
 * <p>An IPv4-mapped IPv6 address ({@code ::ffff:192.0.2.1}) is the IPv4 address: a dual-stack socket
 * reports IPv4 peers that way, and a ban on {@code 192.0.2.1} must hold whichever form arrives.
 *
 * <p>The value is held as two longs (IPv4 in the low 32 bits of {@link #low()}), so matching is
 * arithmetic and allocation-free. Instances are immutable (the text form is remembered once known).
 */
public final class IpAddress {

    private final long high;
    private final long low;
    private final boolean ipv4;
    /** The canonical text, once known (parsed from it, or computed by {@link #toString()}); racy but benign. */
    private String text;

    private IpAddress(long high, long low, boolean ipv4) {
        this.high = high;
        this.low = low;
        this.ipv4 = ipv4;
    }

    /** The IPv4 address whose 32 bits are {@code bits}. */
    public static IpAddress ofIpv4(int bits) {
        return new IpAddress(0, bits & 0xFFFF_FFFFL, true);
    }

    /**
     * The IPv6 address with these 128 bits; an IPv4-mapped address becomes IPv4 (see class comment).
     */
    public static IpAddress ofIpv6(long high, long low) {
        if (high == 0 && (low >>> 32) == 0xFFFFL) {
            return ofIpv4((int) low);
        }
        return new IpAddress(high, low, false);
    }

    /** The address from its 4 or 16 network-order bytes. */
    public static IpAddress ofBytes(byte[] bytes) {
        if (bytes.length == 4) {
            return ofIpv4((int) readLong(bytes, 0, 4));
        }
        if (bytes.length == 16) {
            return ofIpv6(readLong(bytes, 0, 8), readLong(bytes, 8, 8));
        }
        throw new IllegalArgumentException("an IP address has 4 or 16 bytes, not " + bytes.length);
    }

    /**
     * Parses an IP literal.
     *
     * @throws IllegalArgumentException naming the input when it is not an IPv4 or IPv6 literal
     */
    public static IpAddress parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("IP address is missing");
        }
        IpAddress address = parseCanonicalIpv4(text);
        if (address != null) {
            return address;
        }
        address = parse(text, 0, text.length());
        if (address == null) {
            throw new IllegalArgumentException("not an IPv4 or IPv6 address: '" + abbreviate(text) + "'");
        }
        return address;
    }

    /** Parses an IP literal, or returns null when {@code text} is null or not one. */
    public static IpAddress tryParse(String text) {
        if (text == null) {
            return null;
        }
        IpAddress address = parseCanonicalIpv4(text);
        return address != null ? address : parse(text, 0, text.length());
    }

    /**
     * The common case in one pass: a dotted quad, which the strict IPv4 syntax makes canonical, so the
     * text itself is kept as the address's {@link #toString()} (no formatting per request). Null for
     * anything else (IPv6, brackets, zones, malformed), which the general parser then handles.
     */
    private static IpAddress parseCanonicalIpv4(String text) {
        int length = text.length();
        if (length < 7 || length > 15) {
            return null;
        }
        long v4 = parseIpv4(text, 0, length);
        if (v4 < 0) {
            return null;
        }
        IpAddress address = new IpAddress(0, v4, true);
        address.text = text;
        return address;
    }

    /**
     * Parses {@code text[from, to)} as an IP literal (brackets and zone id allowed), or returns null.
     * The range form lets header walkers parse in place without allocating substrings.
     */
    static IpAddress parse(CharSequence text, int from, int to) {
        if (from < 0 || to > text.length() || from >= to) {
            return null;
        }
        if (text.charAt(from) == '[') {
            if (text.charAt(to - 1) != ']') {
                return null;
            }
            from++;
            to--;
        }
        int zone = indexOf(text, '%', from, to);
        if (zone >= 0) {
            if (!validZone(text, zone + 1, to)) {
                return null;
            }
            to = zone;
        }
        if (from >= to) {
            return null;
        }
        if (indexOf(text, ':', from, to) >= 0) {
            return parseIpv6(text, from, to);
        }
        if (zone >= 0) {
            return null; // zone ids belong to IPv6 only
        }
        long v4 = parseIpv4(text, from, to);
        return v4 < 0 ? null : ofIpv4((int) v4);
    }

    /** True for IPv4 (including what arrived IPv4-mapped). */
    public boolean isIpv4() {
        return ipv4;
    }

    /** Bit length: 32 for IPv4, 128 for IPv6. */
    public int bitLength() {
        return ipv4 ? 32 : 128;
    }

    /** The upper 64 bits of an IPv6 address; 0 for IPv4. */
    public long high() {
        return high;
    }

    /** The lower 64 bits of an IPv6 address, or the IPv4 address in the low 32 bits. */
    public long low() {
        return low;
    }

    /** The 4 or 16 network-order bytes. */
    public byte[] toBytes() {
        if (ipv4) {
            byte[] out = new byte[4];
            writeLong(out, 0, 4, low);
            return out;
        }
        byte[] out = new byte[16];
        writeLong(out, 0, 8, high);
        writeLong(out, 8, 8, low);
        return out;
    }

    /** Dotted quad, or the RFC 5952 canonical IPv6 text (lower case, longest zero run compressed). */
    @Override
    public String toString() {
        String known = text;
        if (known == null) {
            known = format();
            text = known;
        }
        return known;
    }

    private String format() {
        if (ipv4) {
            return ((low >>> 24) & 0xFF) + "." + ((low >>> 16) & 0xFF) + "."
                    + ((low >>> 8) & 0xFF) + "." + (low & 0xFF);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 4; i++) {
            groups[i] = (int) (high >>> (48 - 16 * i)) & 0xFFFF;
            groups[i + 4] = (int) (low >>> (48 - 16 * i)) & 0xFFFF;
        }
        int bestStart = -1;
        int bestLength = 1; // RFC 5952: a single zero group is not compressed
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder out = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof IpAddress that && that.high == high && that.low == low && that.ipv4 == ipv4;
    }

    @Override
    public int hashCode() {
        return hash(high, low, ipv4);
    }

    /** {@link #hashCode()} of the address with these bits, without making one. */
    public static int hash(long high, long low, boolean ipv4) {
        long h = high * 0x9E3779B97F4A7C15L + low;
        return (int) (h ^ (h >>> 32)) + (ipv4 ? 1 : 0);
    }

    // ---- parsing machinery ----

    /**
     * Returns the 32-bit value, or -1 when {@code text[from, to)} is not a strict dotted quad. One pass with one
     * test per character: it parses the peer address of every request.
     */
    static long parseIpv4(CharSequence text, int from, int to) {
        long value = 0;
        int octet = 0;
        int digits = 0;
        int dots = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c == '.') {
                if (digits == 0 || dots == 3) {
                    return -1;
                }
                value = (value << 8) | octet;
                dots++;
                octet = 0;
                digits = 0;
            } else {
                int digit = c - '0';
                if (digit < 0 || digit > 9 || digits > 0 && octet == 0) { // not a digit, or a leading zero
                    return -1;
                }
                octet = octet * 10 + digit;
                if (++digits > 3 || octet > 255) {
                    return -1;
                }
            }
        }
        return digits == 0 || dots != 3 ? -1 : (value << 8) | octet;
    }

    private static IpAddress parseIpv6(CharSequence text, int from, int to) {
        int[] groups = new int[8];
        int count = 0;
        int gap = -1; // group index where "::" stands
        int i = from;
        if (to - from >= 2 && text.charAt(from) == ':' && text.charAt(from + 1) == ':') {
            gap = 0;
            i = from + 2;
            if (i == to) {
                return ofIpv6(0, 0);
            }
        } else if (text.charAt(from) == ':') {
            return null;
        }
        while (i < to) {
            int start = i;
            int value = 0;
            while (i < to && hex(text.charAt(i)) >= 0) {
                value = (value << 4) | hex(text.charAt(i));
                i++;
                if (i - start > 4) {
                    return null;
                }
            }
            if (i < to && text.charAt(i) == '.') {
                // dotted IPv4 tail: takes the last two groups and must end the literal
                long v4 = parseIpv4(text, start, to);
                if (v4 < 0 || count > 6) {
                    return null;
                }
                groups[count++] = (int) (v4 >>> 16);
                groups[count++] = (int) (v4 & 0xFFFF);
                i = to;
                break;
            }
            if (i == start || count == 8) {
                return null;
            }
            groups[count++] = value;
            if (i == to) {
                break;
            }
            if (text.charAt(i) != ':') {
                return null;
            }
            i++;
            if (i < to && text.charAt(i) == ':') {
                if (gap >= 0) {
                    return null; // a second "::"
                }
                gap = count;
                i++;
                if (i == to) {
                    break;
                }
            } else if (i == to) {
                return null; // trailing single ':'
            }
        }
        if (gap < 0 && count != 8 || gap >= 0 && count > 7) {
            return null;
        }
        int[] full = new int[8];
        if (gap < 0) {
            full = groups;
        } else {
            int tail = count - gap;
            System.arraycopy(groups, 0, full, 0, gap);
            System.arraycopy(groups, gap, full, 8 - tail, tail);
        }
        long high = 0;
        long low = 0;
        for (int g = 0; g < 4; g++) {
            high = (high << 16) | full[g];
            low = (low << 16) | full[g + 4];
        }
        return ofIpv6(high, low);
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static boolean validZone(CharSequence text, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || c == '.' || c == '_' || c == '-' || c == '~';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(CharSequence text, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    private static long readLong(byte[] bytes, int offset, int length) {
        long value = 0;
        for (int i = 0; i < length; i++) {
            value = (value << 8) | (bytes[offset + i] & 0xFF);
        }
        return value;
    }

    private static void writeLong(byte[] out, int offset, int length, long value) {
        for (int i = length - 1; i >= 0; i--) {
            out[offset + i] = (byte) value;
            value >>>= 8;
        }
    }

    static String abbreviate(String text) {
        return text.length() <= 64 ? text : text.substring(0, 61) + "...";
    }
}

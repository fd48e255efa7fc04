package io.sluice.engine.net;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * Which autonomous system an address belongs to, from an operator's IP-to-ASN file: iptoasn.com's
 * {@code ip2asn-v4.tsv}, {@code ip2asn-v6.tsv} or {@code ip2asn-combined.tsv} (gzipped or not), one range a line:
 * {@code range_start TAB range_end TAB AS_number TAB country TAB description}. The starts and ends are addresses
 * ({@code 1.0.0.0}, {@code 2001:200::}), or for IPv4 unsigned 32-bit numbers as in {@code ip2asn-v4-u32.tsv}. AS 0
 * is iptoasn's "not routed": such a range has no AS and is left out. Blank lines and lines starting with {@code #}
 * are skipped. A MaxMind DB of autonomous systems (GeoLite2-ASN) is read too, by {@link #read(Path)}
 * ({@link MaxMindAsn}).
 *
 * <p>Held as sorted primitive arrays, one set per address family (an IPv4 start as an int, an IPv6 start and end as
 * two longs each, the AS as an unsigned int): a lookup is a binary search over them and allocates nothing. A range
 * costs 12 bytes (IPv4) or 36 bytes (IPv6), and each AS's description is kept once; a file the size of the combined
 * one (500,000 ranges in 80,000 systems) takes about 16 MB of heap (docs/manual/policy.md, "Autonomous
 * systems").
 *
 * <p>Each family's ranges must come in ascending order of their starts, as iptoasn publishes them. A range that
 * overlaps the one before it is taken as it is: where two overlap, the later one answers. Anything else that is
 * wrong with a line (a field missing, an address that is not one, an AS number out of range, a line out of order,
 * a line longer than {@link #MAX_LINE}) is an {@link AsnFileException} naming the line, and nothing is built: a
 * caller that had a table keeps it. Immutable once built; safe to share between threads.
 */
public final class AsnTable {

    /** The table of no file: every lookup answers {@link #NONE}. */
    public static final AsnTable EMPTY = new AsnTable("none", new int[0], new int[0], new int[0], new long[0],
            new long[0], new long[0], new long[0], new int[0], new long[0], new String[0]);
    /** What {@link #lookup} answers for an address in no routed range (or when no file is loaded). */
    public static final long NONE = 0;
    /** The highest AS number (32 bits, RFC 6793). */
    public static final long MAX_ASN = 0xFFFF_FFFFL;
    /** The longest line read; iptoasn's longest is about 150 characters. */
    public static final int MAX_LINE = 4_096;
    /** The most ranges a file may hold: ten times iptoasn's combined file, so a runaway file cannot fill the heap. */
    public static final int MAX_RANGES = 5_000_000;
    /** The longest description kept; a longer one is cut there. */
    static final int MAX_DESCRIPTION = 128;

    private final String source;
    /** IPv4 starts and ends, each with its sign bit flipped so that signed order is address order. */
    private final int[] v4Starts;
    private final int[] v4Ends;
    private final int[] v4Asns;
    private final long[] v6StartHigh;
    private final long[] v6StartLow;
    private final long[] v6EndHigh;
    private final long[] v6EndLow;
    private final int[] v6Asns;
    /** The AS numbers with a description, ascending, and their descriptions. */
    private final long[] named;
    private final String[] names;

    private AsnTable(String source, int[] v4Starts, int[] v4Ends, int[] v4Asns, long[] v6StartHigh, long[] v6StartLow,
                     long[] v6EndHigh, long[] v6EndLow, int[] v6Asns, long[] named, String[] names) {
        this.source = source;
        this.v4Starts = v4Starts;
        this.v4Ends = v4Ends;
        this.v4Asns = v4Asns;
        this.v6StartHigh = v6StartHigh;
        this.v6StartLow = v6StartLow;
        this.v6EndHigh = v6EndHigh;
        this.v6EndLow = v6EndLow;
        this.v6Asns = v6Asns;
        this.named = named;
        this.names = names;
    }

    /**
     * Reads {@code file} (gzipped or not: told by its first bytes).
     *
     * @throws AsnFileException naming the line when the file is not an IP-to-ASN file
     * @throws IOException      when it cannot be read
     */
    public static AsnTable read(Path file) throws IOException {
        if (MaxMindAsn.isMaxMindDb(file)) {
            return MaxMindAsn.read(file, file.toString());
        }
        try (InputStream in = Files.newInputStream(file)) {
            return parse(in, file.toString());
        }
    }

    /**
     * Reads a file's bytes (gzipped or not). {@code in} is read to its end (or the first problem), not closed.
     *
     * @param source the file's name, for the table and its errors
     * @throws AsnFileException naming the line when the bytes are not an IP-to-ASN file
     */
    public static AsnTable parse(InputStream in, String source) throws IOException {
        BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
        buffered.mark(2);
        int first = buffered.read();
        int second = buffered.read();
        buffered.reset();
        InputStream plain = first == 0x1f && second == 0x8b ? new GZIPInputStream(buffered, 1 << 16) : buffered;
        // malformed UTF-8 (a description in another encoding) is replaced, never an error: it is only shown
        return parse(new BufferedReader(new InputStreamReader(plain, StandardCharsets.UTF_8), 1 << 16), source);
    }

    /** Reads the lines of {@code reader}: see the class comment. */
    public static AsnTable parse(Reader reader, String source) throws IOException {
        Builder builder = new Builder(source);
        StringBuilder line = new StringBuilder(160);
        char[] chunk = new char[1 << 16];
        long number = 0;
        for (int read = reader.read(chunk); read >= 0; read = reader.read(chunk)) {
            for (int i = 0; i < read; i++) {
                char c = chunk[i];
                if (c == '\n') {
                    builder.line(line, ++number);
                    line.setLength(0);
                } else if (line.length() == MAX_LINE) {
                    throw new AsnFileException(source, number + 1, "longer than " + MAX_LINE + " characters: not an "
                            + "IP-to-ASN file (iptoasn's TSV: start, end, AS number, country, description)");
                } else {
                    line.append(c);
                }
            }
        }
        if (line.length() > 0) {
            builder.line(line, ++number);
        }
        return builder.build();
    }

    /**
     * The AS number of {@code address}, or {@link #NONE} when it is in no routed range (or is null). Allocates
     * nothing.
     */
    public long lookup(IpAddress address) {
        if (address == null) {
            return NONE;
        }
        return address.isIpv4() ? lookupIpv4((int) address.low()) : lookupIpv6(address.high(), address.low());
    }

    /** The AS number of the IPv4 address whose 32 bits are {@code bits}, or {@link #NONE}. */
    public long lookupIpv4(int bits) {
        int key = bits ^ Integer.MIN_VALUE;
        int lo = 0;
        int hi = v4Starts.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (v4Starts[mid] <= key) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found >= 0 && key <= v4Ends[found] ? Integer.toUnsignedLong(v4Asns[found]) : NONE;
    }

    /** The AS number of the IPv6 address with these 128 bits, or {@link #NONE}. */
    public long lookupIpv6(long high, long low) {
        int lo = 0;
        int hi = v6StartHigh.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(v6StartHigh[mid], v6StartLow[mid], high, low) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found >= 0 && compare(high, low, v6EndHigh[found], v6EndLow[found]) <= 0
                ? Integer.toUnsignedLong(v6Asns[found]) : NONE;
    }

    /** The description the file gives {@code asn} ({@code AMAZON-02}), or null when it gives none. */
    public String description(long asn) {
        int at = Arrays.binarySearch(named, asn);
        return at >= 0 ? names[at] : null;
    }

    /** The file this table was read from, as it was named ({@code none} for {@link #EMPTY}). */
    public String source() {
        return source;
    }

    /** Routed ranges held (IPv4 and IPv6). */
    public int ranges() {
        return v4Starts.length + v6StartHigh.length;
    }

    public int ipv4Ranges() {
        return v4Starts.length;
    }

    public int ipv6Ranges() {
        return v6StartHigh.length;
    }

    /** Distinct autonomous systems with a description. */
    public int systems() {
        return named.length;
    }

    public boolean isEmpty() {
        return ranges() == 0;
    }

    /**
     * The heap the table holds, counted from its arrays and strings (a 64-bit JVM with compressed pointers: 16-byte
     * array headers, 24-byte strings of one byte per Latin-1 character, two otherwise); measured against a real-sized
     * file in {@code AsnTableTest}.
     */
    public long heapBytes() {
        long bytes = 3 * array(v4Starts.length, 4) + 4 * array(v6StartHigh.length, 8) + array(v6Asns.length, 4)
                + array(named.length, 8) + array(names.length, 4);
        for (String name : names) {
            boolean latin1 = name.chars().allMatch(c -> c < 256);
            bytes += 24 + array(name.length(), latin1 ? 1 : 2);
        }
        return bytes;
    }

    private static long array(long length, int each) {
        return (16 + length * each + 7) & ~7L;
    }

    private static int compare(long aHigh, long aLow, long bHigh, long bLow) {
        int high = Long.compareUnsigned(aHigh, bHigh);
        return high != 0 ? high : Long.compareUnsigned(aLow, bLow);
    }

    @Override
    public String toString() {
        return "AsnTable[" + source + ": " + v4Starts.length + " IPv4 and " + v6StartHigh.length + " IPv6 ranges, "
                + named.length + " systems]";
    }

    /** The arrays as a file is read, grown as needed and trimmed at the end ({@link MaxMindAsn} feeds one too). */
    static final class Builder {
        private final String source;
        private int[] v4Starts = new int[1024];
        private int[] v4Ends = new int[1024];
        private int[] v4Asns = new int[1024];
        private int v4Count;
        private long[] v6StartHigh = new long[256];
        private long[] v6StartLow = new long[256];
        private long[] v6EndHigh = new long[256];
        private long[] v6EndLow = new long[256];
        private int[] v6Asns = new int[256];
        private int v6Count;
        /** Where the previous IPv4 / IPv6 range started, and on which line: each family is sorted on its own. */
        private long v4Line;
        private long v6Line;
        private int lastV4Start;
        private long lastV6High;
        private long lastV6Low;
        private final Map<Long, String> descriptions = new HashMap<>();
        /** Descriptions already made, so an AS's hundreds of ranges share one string. */
        private final Map<String, String> seen = new HashMap<>();

        Builder(String source) {
            this.source = source;
        }

        void line(StringBuilder line, long number) {
            int end = line.length();
            if (end > 0 && line.charAt(end - 1) == '\r') {
                end--;
            }
            if (end == 0 || line.charAt(0) == '#') {
                return;
            }
            int tab1 = indexOf(line, '\t', 0, end);
            int tab2 = tab1 < 0 ? -1 : indexOf(line, '\t', tab1 + 1, end);
            if (tab2 < 0) {
                throw problem(number, "expected at least three tab-separated fields (range start, range end, AS "
                        + "number), found " + (tab1 < 0 ? 1 : 2));
            }
            int tab3 = indexOf(line, '\t', tab2 + 1, end);
            long asn = asn(line, tab2 + 1, tab3 < 0 ? end : tab3, number);
            String startText = line.substring(0, tab1).strip();
            String endText = line.substring(tab1 + 1, tab2).strip();
            IpAddress start = address(startText, number, "range start");
            IpAddress last = address(endText, number, "range end");
            if (start.isIpv4() != last.isIpv4()) {
                throw problem(number, "the range starts at an " + family(start) + " address and ends at an "
                        + family(last) + " one");
            }
            if (compare(start, last) > 0) {
                throw problem(number, "the range ends (" + endText + ") before it starts (" + startText + ")");
            }
            if (range(start, last, asn, number) && tab3 >= 0 && !descriptions.containsKey(asn)) {
                int tab4 = indexOf(line, '\t', tab3 + 1, end);
                describe(asn, tab4 < 0 ? "" : line.substring(tab4 + 1, end));
            }
        }

        /**
         * One range, in order ({@code number}: its line, or its place in a database, for a message); false when it
         * is in no AS and so not kept.
         */
        boolean range(IpAddress start, IpAddress last, long asn, long number) {
            order(start, number);
            if (asn == NONE) {
                return false; // iptoasn's "not routed": in no AS, and kept in order all the same
            }
            if (v4Count + v6Count >= MAX_RANGES) {
                throw problem(number, "more than " + MAX_RANGES + " ranges: not an IP-to-ASN file of this world");
            }
            if (start.isIpv4()) {
                addIpv4(start, last, asn);
            } else {
                addIpv6(start, last, asn);
            }
            return true;
        }

        /** {@code asn}'s description, when it has none yet: cut at {@link #MAX_DESCRIPTION}, one string per text. */
        void describe(long asn, String text) {
            if (text == null || descriptions.containsKey(asn)) {
                return;
            }
            String description = text.substring(0, Math.min(text.length(), MAX_DESCRIPTION)).strip();
            if (!description.isEmpty()) {
                descriptions.put(asn, seen.computeIfAbsent(description, d -> d));
            }
        }

        /** Each family in ascending order of starts (the binary search needs it). */
        private void order(IpAddress start, long number) {
            if (start.isIpv4()) {
                int key = (int) start.low() ^ Integer.MIN_VALUE;
                if (v4Line > 0 && key <= lastV4Start) {
                    throw unsorted(number, v4Line);
                }
                lastV4Start = key;
                v4Line = number;
            } else {
                if (v6Line > 0 && AsnTable.compare(start.high(), start.low(), lastV6High, lastV6Low) <= 0) {
                    throw unsorted(number, v6Line);
                }
                lastV6High = start.high();
                lastV6Low = start.low();
                v6Line = number;
            }
        }

        private AsnFileException unsorted(long number, long previous) {
            return problem(number, "this range does not start after the one on line " + previous + " (the file must "
                    + "be sorted by range start, as iptoasn publishes it)");
        }

        private void addIpv4(IpAddress start, IpAddress last, long asn) {
            if (v4Count == v4Starts.length) {
                int grown = v4Count * 2;
                v4Starts = Arrays.copyOf(v4Starts, grown);
                v4Ends = Arrays.copyOf(v4Ends, grown);
                v4Asns = Arrays.copyOf(v4Asns, grown);
            }
            v4Starts[v4Count] = (int) start.low() ^ Integer.MIN_VALUE;
            v4Ends[v4Count] = (int) last.low() ^ Integer.MIN_VALUE;
            v4Asns[v4Count] = (int) asn;
            v4Count++;
        }

        private void addIpv6(IpAddress start, IpAddress last, long asn) {
            if (v6Count == v6StartHigh.length) {
                int grown = v6Count * 2;
                v6StartHigh = Arrays.copyOf(v6StartHigh, grown);
                v6StartLow = Arrays.copyOf(v6StartLow, grown);
                v6EndHigh = Arrays.copyOf(v6EndHigh, grown);
                v6EndLow = Arrays.copyOf(v6EndLow, grown);
                v6Asns = Arrays.copyOf(v6Asns, grown);
            }
            v6StartHigh[v6Count] = start.high();
            v6StartLow[v6Count] = start.low();
            v6EndHigh[v6Count] = last.high();
            v6EndLow[v6Count] = last.low();
            v6Asns[v6Count] = (int) asn;
            v6Count++;
        }

        AsnTable build() {
            if (v4Count + v6Count == 0) {
                throw new AsnFileException(source, 0, "no routed range in it: not an IP-to-ASN file (iptoasn's TSV: "
                        + "start, end, AS number, country, description)");
            }
            long[] named = descriptions.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
            String[] names = new String[named.length];
            for (int i = 0; i < named.length; i++) {
                names[i] = descriptions.get(named[i]);
            }
            return new AsnTable(source, Arrays.copyOf(v4Starts, v4Count), Arrays.copyOf(v4Ends, v4Count),
                    Arrays.copyOf(v4Asns, v4Count), Arrays.copyOf(v6StartHigh, v6Count),
                    Arrays.copyOf(v6StartLow, v6Count), Arrays.copyOf(v6EndHigh, v6Count),
                    Arrays.copyOf(v6EndLow, v6Count), Arrays.copyOf(v6Asns, v6Count), named, names);
        }

        private long asn(StringBuilder line, int from, int to, long number) {
            String text = line.substring(from, to).strip();
            if (text.isEmpty() || text.length() > 10) {
                throw problem(number, "the AS number '" + shown(text) + "' is not a number from 0 to " + MAX_ASN);
            }
            long value = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c < '0' || c > '9') {
                    throw problem(number, "the AS number '" + shown(text) + "' is not a number from 0 to " + MAX_ASN);
                }
                value = value * 10 + (c - '0');
            }
            if (value > MAX_ASN) {
                throw problem(number, "the AS number " + text + " is above " + MAX_ASN);
            }
            return value;
        }

        /** An address, or for IPv4 an unsigned 32-bit number ({@code ip2asn-v4-u32.tsv}). */
        private IpAddress address(String text, long number, String what) {
            if (!text.isEmpty() && text.length() <= 10 && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
                long value = Long.parseLong(text);
                if (value <= 0xFFFF_FFFFL) {
                    return IpAddress.ofIpv4((int) value);
                }
            }
            IpAddress address = text.length() > 64 ? null : IpAddress.tryParse(text);
            if (address == null) {
                throw problem(number, "the " + what + " '" + shown(text) + "' is not an IPv4 or IPv6 address");
            }
            return address;
        }

        AsnFileException problem(long number, String reason) {
            return new AsnFileException(source, number, reason);
        }

        private static int compare(IpAddress a, IpAddress b) {
            return AsnTable.compare(a.high(), a.low(), b.high(), b.low());
        }

        private static String family(IpAddress address) {
            return address.isIpv4() ? "IPv4" : "IPv6";
        }

        private static int indexOf(StringBuilder line, char c, int from, int to) {
            for (int i = from; i < to; i++) {
                if (line.charAt(i) == c) {
                    return i;
                }
            }
            return -1;
        }

        /** Text from the file, cut short for a message. */
        private static String shown(String text) {
            return text.length() > 40 ? text.substring(0, 40) + "..." : text;
        }
    }
}

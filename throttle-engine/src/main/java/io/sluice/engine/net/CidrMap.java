package io.sluice.engine.net;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An immutable map from address blocks to values, answering "which block holds this address?"
 * by longest prefix. Used per request (bans, allow-list, trusted proxies), so a lookup allocates
 * nothing and costs one binary search per distinct prefix length present (typically a handful),
 * not one comparison per entry.
 *
 * <p>Layout: for each address family and each prefix length in use, the network keys sorted in a
 * {@code long[]} (IPv6 as high/low pairs) beside their values. Lookup masks the address to each
 * prefix length, longest first, and binary-searches. When the same block is put twice the first
 * value wins.
 *
 * <p>Most addresses asked about are in no block (a ban list is asked about every request), so each family
 * also has a bit per 16-bit top prefix that some block overlaps (8 KB): an address whose top 16 bits are
 * in no block is answered by one bit test, without the binary searches.
 *
 * @param <V> the value held per block
 */
public final class CidrMap<V> {

    private static final CidrMap<Object> EMPTY = new Builder<>().build();

    private static final int TOP_BITS = 16;

    private final Table[] ipv4; // longest prefix first
    private final Table[] ipv6;
    /** A bit per top-16-bit prefix that some block overlaps; null when the family has no blocks. */
    private final long[] ipv4Tops;
    private final long[] ipv6Tops;
    private final int size;

    private CidrMap(Table[] ipv4, Table[] ipv6, long[] ipv4Tops, long[] ipv6Tops, int size) {
        this.ipv4 = ipv4;
        this.ipv6 = ipv6;
        this.ipv4Tops = ipv4Tops;
        this.ipv6Tops = ipv6Tops;
        this.size = size;
    }

    /** The map with no blocks. */
    @SuppressWarnings("unchecked")
    public static <V> CidrMap<V> empty() {
        return (CidrMap<V>) EMPTY;
    }

    public static <V> Builder<V> builder() {
        return new Builder<>();
    }

    /** The value of the longest block holding {@code address}, or null when none does. */
    @SuppressWarnings("unchecked")
    public V longestMatch(IpAddress address) {
        if (address == null) {
            return null;
        }
        if (address.isIpv4()) {
            if (ipv4Tops == null || !isSet(ipv4Tops, (int) (address.low() >>> 16))) {
                return null;
            }
            for (Table table : ipv4) {
                long key = address.low() & table.lowMask;
                int at = Arrays.binarySearch(table.keys, key);
                if (at >= 0) {
                    return (V) table.values[at];
                }
            }
            return null;
        }
        if (ipv6Tops == null || !isSet(ipv6Tops, (int) (address.high() >>> 48))) {
            return null;
        }
        for (Table table : ipv6) {
            int at = searchPairs(table.keys, address.high() & table.highMask, address.low() & table.lowMask);
            if (at >= 0) {
                return (V) table.values[at];
            }
        }
        return null;
    }

    /** True when some block holds {@code address}. */
    public boolean containsAddress(IpAddress address) {
        return longestMatch(address) != null;
    }

    /** Number of distinct blocks. */
    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    private static boolean isSet(long[] bits, int index) {
        return (bits[index >>> 6] & (1L << index)) != 0;
    }

    private static int searchPairs(long[] pairs, long high, long low) {
        int lo = 0;
        int hi = pairs.length / 2 - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = compare(pairs[2 * mid], pairs[2 * mid + 1], high, low);
            if (cmp < 0) {
                lo = mid + 1;
            } else if (cmp > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    private static int compare(long aHigh, long aLow, long bHigh, long bLow) {
        int c = Long.compareUnsigned(aHigh, bHigh);
        return c != 0 ? c : Long.compareUnsigned(aLow, bLow);
    }

    /** One prefix length: sorted keys (IPv4: one long each; IPv6: high, low pairs) and their values. */
    private static final class Table {
        final long highMask;
        final long lowMask;
        final long[] keys;
        final Object[] values;

        Table(long highMask, long lowMask, long[] keys, Object[] values) {
            this.highMask = highMask;
            this.lowMask = lowMask;
            this.keys = keys;
            this.values = values;
        }
    }

    /** Collects blocks; not thread-safe; {@link #build()} may be called more than once. */
    public static final class Builder<V> {
        private final Map<Cidr, V> entries = new LinkedHashMap<>();

        private Builder() {
        }

        /** Adds {@code cidr}; if it is already present the earlier value is kept. */
        public Builder<V> put(Cidr cidr, V value) {
            if (cidr == null || value == null) {
                throw new IllegalArgumentException("CIDR and value are required");
            }
            entries.putIfAbsent(cidr, value);
            return this;
        }

        public CidrMap<V> build() {
            TreeMap<Integer, List<Map.Entry<Cidr, V>>> v4 = new TreeMap<>(Comparator.reverseOrder());
            TreeMap<Integer, List<Map.Entry<Cidr, V>>> v6 = new TreeMap<>(Comparator.reverseOrder());
            for (Map.Entry<Cidr, V> e : entries.entrySet()) {
                Cidr c = e.getKey();
                (c.network().isIpv4() ? v4 : v6).computeIfAbsent(c.prefixLength(), k -> new ArrayList<>()).add(e);
            }
            return new CidrMap<>(tables(v4, true), tables(v6, false), tops(v4, true), tops(v6, false),
                    entries.size());
        }

        /** The top-16-bit prefixes the blocks overlap (see the class comment), or null for no blocks. */
        private static <V> long[] tops(TreeMap<Integer, List<Map.Entry<Cidr, V>>> byPrefix, boolean ipv4) {
            if (byPrefix.isEmpty()) {
                return null;
            }
            long[] bits = new long[(1 << TOP_BITS) / 64];
            for (Map.Entry<Integer, List<Map.Entry<Cidr, V>>> group : byPrefix.entrySet()) {
                int wider = Math.max(0, TOP_BITS - group.getKey()); // a block shorter than /16 spans 2^wider tops
                for (Map.Entry<Cidr, V> e : group.getValue()) {
                    IpAddress network = e.getKey().network();
                    int first = (int) (ipv4 ? network.low() >>> 16 : network.high() >>> 48);
                    for (int top = first; top < first + (1 << wider); top++) {
                        bits[top >>> 6] |= 1L << top;
                    }
                }
            }
            return bits;
        }

        private static <V> Table[] tables(TreeMap<Integer, List<Map.Entry<Cidr, V>>> byPrefix, boolean ipv4) {
            Table[] out = new Table[byPrefix.size()];
            int t = 0;
            for (Map.Entry<Integer, List<Map.Entry<Cidr, V>>> group : byPrefix.entrySet()) {
                int prefix = group.getKey();
                List<Map.Entry<Cidr, V>> list = new ArrayList<>(group.getValue());
                list.sort((a, b) -> compare(a.getKey().network().high(), a.getKey().network().low(),
                        b.getKey().network().high(), b.getKey().network().low()));
                Object[] values = new Object[list.size()];
                long[] keys = new long[ipv4 ? list.size() : 2 * list.size()];
                for (int i = 0; i < list.size(); i++) {
                    IpAddress network = list.get(i).getKey().network();
                    values[i] = list.get(i).getValue();
                    if (ipv4) {
                        keys[i] = network.low();
                    } else {
                        keys[2 * i] = network.high();
                        keys[2 * i + 1] = network.low();
                    }
                }
                long lowMask = ipv4
                        ? (prefix == 0 ? 0 : (0xFFFF_FFFFL << (32 - prefix)) & 0xFFFF_FFFFL)
                        : Cidr.lowMask(prefix);
                out[t++] = new Table(ipv4 ? 0 : Cidr.highMask(prefix), lowMask, keys, values);
            }
            return out;
        }
    }
}

package io.sluice.engine.net;

import java.util.Collection;

/**
 * An immutable set of address blocks with a fast, allocation-free membership test (see
 * {@link CidrMap} for how). Built from the policy's text (bans, allow-list, trusted proxies).
 */
public final class CidrSet {

    private static final CidrSet EMPTY = new CidrSet(CidrMap.empty());

    private final CidrMap<Cidr> blocks;

    private CidrSet(CidrMap<Cidr> blocks) {
        this.blocks = blocks;
    }

    public static CidrSet empty() {
        return EMPTY;
    }

    /** The set of these blocks. */
    public static CidrSet of(Collection<Cidr> cidrs) {
        CidrMap.Builder<Cidr> builder = CidrMap.builder();
        for (Cidr cidr : cidrs) {
            builder.put(cidr, cidr);
        }
        return new CidrSet(builder.build());
    }

    /**
     * Parses each entry with {@link Cidr#parse(String)}.
     *
     * @throws IllegalArgumentException naming the first bad entry and why
     */
    public static CidrSet parse(Collection<String> texts) {
        CidrMap.Builder<Cidr> builder = CidrMap.builder();
        for (String text : texts) {
            Cidr cidr = Cidr.parse(text);
            builder.put(cidr, cidr);
        }
        return new CidrSet(builder.build());
    }

    /** True when a block holds {@code address}; false for null. */
    public boolean contains(IpAddress address) {
        return blocks.longestMatch(address) != null;
    }

    /** The most specific block holding {@code address}, or null. */
    public Cidr longestMatch(IpAddress address) {
        return blocks.longestMatch(address);
    }

    public int size() {
        return blocks.size();
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }
}

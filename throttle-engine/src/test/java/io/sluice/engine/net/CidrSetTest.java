package io.sluice.engine.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CidrSetTest {

    @Test
    void matchesLongestPrefixAcrossFamilies() {
        CidrSet set = CidrSet.parse(List.of("10.0.0.0/8", "10.1.0.0/16", "192.0.2.7", "2001:db8::/32",
                "2001:db8:1::/48", "::1"));
        assertThat(set.size()).isEqualTo(6);
        assertThat(set.longestMatch(IpAddress.parse("10.1.2.3"))).hasToString("10.1.0.0/16");
        assertThat(set.longestMatch(IpAddress.parse("10.2.2.3"))).hasToString("10.0.0.0/8");
        assertThat(set.contains(IpAddress.parse("192.0.2.7"))).isTrue();
        assertThat(set.contains(IpAddress.parse("192.0.2.8"))).isFalse();
        assertThat(set.longestMatch(IpAddress.parse("2001:db8:1::9"))).hasToString("2001:db8:1::/48");
        assertThat(set.longestMatch(IpAddress.parse("2001:db8:2::9"))).hasToString("2001:db8::/32");
        assertThat(set.contains(IpAddress.parse("::1"))).isTrue();
        assertThat(set.contains(IpAddress.parse("::2"))).isFalse();
        assertThat(set.contains(null)).isFalse();
        assertThat(CidrSet.empty().contains(IpAddress.parse("1.2.3.4"))).isFalse();
    }

    @Test
    void aBlockWiderThanSixteenBitsHoldsEveryAddressItSpans() {
        CidrSet set = CidrSet.parse(List.of("10.0.0.0/8", "2000::/3", "192.0.2.0/24"));
        assertThat(set.contains(IpAddress.parse("10.0.0.1"))).isTrue();
        assertThat(set.contains(IpAddress.parse("10.255.255.254"))).isTrue();
        assertThat(set.contains(IpAddress.parse("11.0.0.1"))).isFalse();
        assertThat(set.contains(IpAddress.parse("9.255.255.255"))).isFalse();
        assertThat(set.contains(IpAddress.parse("192.0.3.1"))).isFalse();
        assertThat(set.contains(IpAddress.parse("3fff:ffff::1"))).isTrue();
        assertThat(set.contains(IpAddress.parse("4000::1"))).isFalse();
        CidrSet everything = CidrSet.parse(List.of("0.0.0.0/0"));
        assertThat(everything.contains(IpAddress.parse("203.0.113.9"))).isTrue();
        assertThat(everything.contains(IpAddress.parse("2001:db8::1"))).isFalse();
    }

    @Test
    void badEntryIsNamed() {
        assertThatThrownBy(() -> CidrSet.parse(List.of("10.0.0.0/8", "10.0.0.1/8")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10.0.0.1/8");
    }

    @Test
    void firstValueWinsForDuplicateBlocks() {
        CidrMap<String> map = CidrMap.<String>builder().put(Cidr.parse("1.2.3.0/24"), "first")
                .put(Cidr.parse("1.2.3.0/24"), "second").build();
        assertThat(map.size()).isEqualTo(1);
        assertThat(map.longestMatch(IpAddress.parse("1.2.3.4"))).isEqualTo("first");
    }

    /** Property test: the indexed lookup agrees with a linear scan for longest match. */
    @Test
    void agreesWithLinearScan() {
        Random random = new Random(99L);
        for (int round = 0; round < 200; round++) {
            List<Cidr> cidrs = new ArrayList<>();
            int count = 1 + random.nextInt(60);
            // a small pool of bases so that blocks nest and overlap
            IpAddress[] bases = {IpAddress.ofIpv4(random.nextInt()), IpAddress.ofIpv6(random.nextLong() | 1L << 62, 0)};
            for (int i = 0; i < count; i++) {
                IpAddress base = bases[random.nextInt(2)];
                int prefix = random.nextInt(base.bitLength() + 1);
                cidrs.add(new Cidr(Cidr.sameBits(perturb(base, random), prefix), prefix));
            }
            CidrSet set = CidrSet.of(cidrs);
            for (int probe = 0; probe < 200; probe++) {
                IpAddress address = perturb(bases[random.nextInt(2)], random);
                Cidr expected = null;
                for (Cidr c : cidrs) {
                    if (c.contains(address) && (expected == null || c.prefixLength() > expected.prefixLength())) {
                        expected = c;
                    }
                }
                assertThat(set.longestMatch(address)).isEqualTo(expected);
            }
        }
    }

    private static IpAddress perturb(IpAddress base, Random random) {
        int bits = random.nextInt(base.bitLength() + 1);
        if (base.isIpv4()) {
            long noise = bits == 0 ? 0 : random.nextLong() & ((1L << bits) - 1);
            return IpAddress.ofIpv4((int) (base.low() ^ noise));
        }
        long lowNoise = bits == 0 ? 0 : bits >= 64 ? random.nextLong() : random.nextLong() & ((1L << bits) - 1);
        long highNoise = bits <= 64 ? 0 : bits == 128 ? random.nextLong() >>> 2
                : random.nextLong() & ((1L << (bits - 64)) - 1) & ~(3L << 62);
        return IpAddress.ofIpv6(base.high() ^ highNoise, base.low() ^ lowNoise);
    }
}

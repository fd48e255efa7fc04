package io.sluice.engine.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CidrTest {

    @Test
    void parsesBlocksAndSingleAddresses() {
        Cidr ten = Cidr.parse("10.0.0.0/8");
        assertThat(ten.contains(IpAddress.parse("10.255.1.2"))).isTrue();
        assertThat(ten.contains(IpAddress.parse("11.0.0.0"))).isFalse();
        assertThat(ten.contains(IpAddress.parse("::ffff:10.1.1.1"))).isTrue();
        assertThat(Cidr.parse("192.0.2.7")).isEqualTo(new Cidr(IpAddress.parse("192.0.2.7"), 32));
        assertThat(Cidr.parse("2001:db8::1")).hasToString("2001:db8::1/128");
        Cidr doc = Cidr.parse("2001:DB8::/32");
        assertThat(doc).hasToString("2001:db8::/32");
        assertThat(doc.contains(IpAddress.parse("2001:db8:ffff::1"))).isTrue();
        assertThat(doc.contains(IpAddress.parse("2001:db9::"))).isFalse();
        assertThat(Cidr.parse("0.0.0.0/0").contains(IpAddress.parse("8.8.8.8"))).isTrue();
        assertThat(Cidr.parse("::/0").contains(IpAddress.parse("8.8.8.8"))).isFalse();
        assertThat(Cidr.parse("::/0").contains(IpAddress.parse("2001:db8::"))).isTrue();
        assertThat(Cidr.parse(" [2001:db8::]/48 ")).hasToString("2001:db8::/48");
    }

    @Test
    void mappedBlockIsIpv4Block() {
        assertThat(Cidr.parse("::ffff:10.0.0.0/104")).isEqualTo(Cidr.parse("10.0.0.0/8"));
        assertThat(Cidr.parse("::ffff:10.0.0.1")).isEqualTo(Cidr.parse("10.0.0.1/32"));
        assertThatThrownBy(() -> Cidr.parse("::ffff:0.0.0.0/80"))
                .hasMessageContaining("IPv4-mapped block needs a prefix of at least 96");
    }

    @Test
    void clearErrors() {
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("prefix length 33 is out of range 0-32 in CIDR '10.0.0.0/33'");
        assertThatThrownBy(() -> Cidr.parse("::/129")).hasMessageContaining("out of range 0-128");
        assertThatThrownBy(() -> Cidr.parse("10.1.2.3/8"))
                .hasMessage("host bits are set in 10.1.2.3/8; the network is 10.0.0.0/8");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/")).hasMessageContaining("bad prefix length ''");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/08")).hasMessageContaining("bad prefix length '08'");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/-1")).hasMessageContaining("bad prefix length");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/8/8")).hasMessageContaining("bad prefix length");
        assertThatThrownBy(() -> Cidr.parse("fe80::%eth0/64")).hasMessageContaining("zone ids");
        assertThatThrownBy(() -> Cidr.parse("example.com/24")).hasMessageContaining("not an IPv4 or IPv6");
        assertThatThrownBy(() -> Cidr.parse("")).hasMessage("CIDR is missing");
        assertThatThrownBy(() -> Cidr.parse(null)).hasMessage("CIDR is missing");
        assertThatThrownBy(() -> new Cidr(IpAddress.parse("1.2.3.4"), -1)).hasMessageContaining("out of range");
    }

    /**
     * Property test: for random blocks and addresses, parse(toString) round-trips and contains() agrees
     * with a BigInteger reference (shift both right by the host bits and compare).
     */
    @Test
    void containsAgreesWithBigIntegerReference() {
        Random random = new Random(7L);
        for (int i = 0; i < 50_000; i++) {
            boolean v4 = random.nextBoolean();
            int bits = v4 ? 32 : 128;
            int prefix = random.nextInt(bits + 1);
            IpAddress base = randomAddress(random, v4);
            Cidr cidr = new Cidr(Cidr.sameBits(base, prefix), prefix);
            assertThat(Cidr.parse(cidr.toString())).isEqualTo(cidr);
            IpAddress probe = random.nextBoolean() ? flipLowBit(base, random, bits) : randomAddress(random, v4);
            boolean expected = reference(cidr.network()).shiftRight(bits - prefix)
                    .equals(reference(probe).shiftRight(bits - prefix));
            assertThat(cidr.contains(probe)).as("%s contains %s", cidr, probe).isEqualTo(expected);
        }
    }

    /** Fuzz: mutated and random strings either parse or throw IllegalArgumentException, nothing else. */
    @Test
    void garbageOnlyEverThrowsIllegalArgument() {
        Random random = new Random(42L);
        String alphabet = "0123456789abcdefABCDEFxg:./%[] -\u0661";
        String[] seeds = {"10.0.0.0/8", "2001:db8::/32", "::ffff:1.2.3.4/120", "[fe80::1]/64", "1.2.3.4"};
        int parsed = 0;
        for (int i = 0; i < 100_000; i++) {
            StringBuilder s = new StringBuilder(seeds[random.nextInt(seeds.length)]);
            int edits = 1 + random.nextInt(4);
            for (int e = 0; e < edits; e++) {
                int op = random.nextInt(3);
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                if (op == 0 || s.length() == 0) {
                    s.insert(random.nextInt(s.length() + 1), c);
                } else if (op == 1) {
                    s.deleteCharAt(random.nextInt(s.length()));
                } else {
                    s.setCharAt(random.nextInt(s.length()), c);
                }
            }
            String text = s.toString();
            try {
                Cidr cidr = Cidr.parse(text);
                parsed++;
                assertThat(Cidr.parse(cidr.toString())).isEqualTo(cidr);
            } catch (IllegalArgumentException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
        assertThat(parsed).isGreaterThan(1000); // the fuzzer reaches valid inputs too
    }

    private static IpAddress randomAddress(Random random, boolean v4) {
        if (v4) {
            return IpAddress.ofIpv4(random.nextInt());
        }
        IpAddress a = IpAddress.ofIpv6(random.nextLong(), random.nextLong());
        return a.isIpv4() ? IpAddress.ofIpv6(1, 0) : a;
    }

    private static IpAddress flipLowBit(IpAddress a, Random random, int bits) {
        int bit = random.nextInt(bits);
        if (a.isIpv4()) {
            return IpAddress.ofIpv4((int) (a.low() ^ (1L << bit)));
        }
        IpAddress flipped = bit < 64 ? IpAddress.ofIpv6(a.high(), a.low() ^ (1L << bit))
                : IpAddress.ofIpv6(a.high() ^ (1L << (bit - 64)), a.low());
        return flipped.isIpv4() ? a : flipped;
    }

    private static BigInteger reference(IpAddress a) {
        return new BigInteger(1, a.toBytes());
    }
}

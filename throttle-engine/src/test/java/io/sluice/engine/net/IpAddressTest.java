package io.sluice.engine.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IpAddressTest {
    private static final Pattern STRICT_DOTTED_QUAD = Pattern.compile(
            "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}"
                    + "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");

    @Test
    void parsesIpv4() {
        IpAddress a = IpAddress.parse("192.0.2.255");
        assertThat(a.isIpv4()).isTrue();
        assertThat(a.low()).isEqualTo(0xC00002FFL);
        assertThat(a).hasToString("192.0.2.255");
        assertThat(a.toBytes()).containsExactly(192, 0, 2, 255);
        assertThat(IpAddress.parse("0.0.0.0").low()).isZero();
        assertThat(IpAddress.parse("255.255.255.255").low()).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void parsesIpv6AndPrintsCanonically() {
        assertThat(IpAddress.parse("2001:DB8:0:0:0:0:0:1")).hasToString("2001:db8::1");
        assertThat(IpAddress.parse("::")).hasToString("::");
        assertThat(IpAddress.parse("::1")).hasToString("::1");
        assertThat(IpAddress.parse("1::")).hasToString("1::");
        assertThat(IpAddress.parse("2001:db8:0:1:0:0:0:1")).hasToString("2001:db8:0:1::1");
        assertThat(IpAddress.parse("2001:0:0:1:0:0:0:1")).hasToString("2001:0:0:1::1");
        assertThat(IpAddress.parse("2001:0:0:1:1:0:0:1")).hasToString("2001::1:1:0:0:1"); // tie: first run
        assertThat(IpAddress.parse("2001:db8::1:0:0:1")).hasToString("2001:db8::1:0:0:1");
        assertThat(IpAddress.parse("1:2:3:4:5:6:7:8")).hasToString("1:2:3:4:5:6:7:8");
        assertThat(IpAddress.parse("1:0:3:4:5:6:7:8")).hasToString("1:0:3:4:5:6:7:8");
        assertThat(IpAddress.parse("::2:3:4:5:6:7:8")).hasToString("0:2:3:4:5:6:7:8");
        assertThat(IpAddress.parse("64:ff9b::192.0.2.33")).hasToString("64:ff9b::c000:221");
    }

    @Test
    void mappedIpv6IsIpv4() {
        IpAddress mapped = IpAddress.parse("::ffff:192.0.2.1");
        assertThat(mapped).isEqualTo(IpAddress.parse("192.0.2.1"));
        assertThat(mapped.isIpv4()).isTrue();
        assertThat(IpAddress.parse("::FFFF:c000:0201")).isEqualTo(IpAddress.parse("192.0.2.1"));
        assertThat(IpAddress.parse("[::ffff:10.0.0.1]")).hasToString("10.0.0.1");
        // ::ffff:0:x (SIIT) and ::x (deprecated compatible) are not mapped
        assertThat(IpAddress.parse("::ffff:0:102:304").isIpv4()).isFalse();
        assertThat(IpAddress.parse("::1.2.3.4").isIpv4()).isFalse();
    }

    @Test
    void bracketsAndZonesAreAcceptedAndStripped() {
        assertThat(IpAddress.parse("[2001:db8::1]")).hasToString("2001:db8::1");
        assertThat(IpAddress.parse("fe80::1%eth0")).hasToString("fe80::1");
        assertThat(IpAddress.parse("[fe80::1%25]")).hasToString("fe80::1");
        assertThat(IpAddress.parse("fe80::1%eth0")).isEqualTo(IpAddress.parse("fe80::1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "1.2.3.04", "1..2.3",
        "1.2.3.4.", ".1.2.3.4", "1.2.3.-4", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4%eth0", "a.b.c.d", "1.2.3.1000",
        ":", ":::", "1:::2", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7::8",
        ":1::", "1:", ":1", "::1:", "g::", "[::1", "::1]", "[]", "[1.2.3.4", "fe80::1%", "fe80::1%eth 0",
        "::1.2.3", "::1.2.3.4:5", "1:2:3:4:5:6:7:1.2.3.4", "::ffff:256.1.1.1", "localhost", "example.com",
        "0x7f.0.0.1", "2130706433", "1.2.3.4/8", "１.2.3.4"})
    void rejectsGarbage(String text) {
        assertThat(IpAddress.tryParse(text)).isNull();
        assertThatThrownBy(() -> IpAddress.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an IPv4 or IPv6 address");
    }

    /**
     * The dotted-quad fast path for whole strings agrees with the general parser on near-miss text, and both accept
     * exactly the strict dotted quads (checked against an independent regular expression).
     */
    @Test
    void dottedQuadFastPathAgreesWithTheGeneralParser() {
        Random random = new Random(7L);
        String alphabet = "0123456789...:x";
        for (int i = 0; i < 200_000; i++) {
            StringBuilder text = new StringBuilder();
            int length = 7 + random.nextInt(9);
            for (int c = 0; c < length; c++) {
                text.append(random.nextInt(4) == 0 ? alphabet.charAt(10 + random.nextInt(5))
                        : alphabet.charAt(random.nextInt(10)));
            }
            if (random.nextBoolean()) { // make it a near-miss of a real dotted quad
                text.setLength(0);
                text.append(random.nextInt(300)).append('.').append(random.nextInt(300)).append('.')
                        .append(random.nextInt(300)).append('.').append(random.nextInt(300));
                if (random.nextInt(4) == 0) {
                    text.insert(random.nextInt(text.length() + 1), random.nextBoolean() ? '0' : '.');
                }
            }
            String s = text.toString();
            assertThat(IpAddress.tryParse(s)).as(s).isEqualTo(IpAddress.parse(new StringBuilder(s), 0, s.length()));
            boolean strict = STRICT_DOTTED_QUAD.matcher(s).matches();
            assertThat(IpAddress.parseIpv4(s, 0, s.length()) >= 0).as(s).isEqualTo(strict);
        }
    }

    @Test
    void nullIsMissing() {
        assertThat(IpAddress.tryParse(null)).isNull();
        assertThatThrownBy(() -> IpAddress.parse(null)).hasMessage("IP address is missing");
    }

    @Test
    void bytesRoundTrip() {
        byte[] v6 = IpAddress.parse("2001:db8::ff:1").toBytes();
        assertThat(IpAddress.ofBytes(v6)).isEqualTo(IpAddress.parse("2001:db8::ff:1"));
        assertThatThrownBy(() -> IpAddress.ofBytes(new byte[5])).isInstanceOf(IllegalArgumentException.class);
    }

    /** Agrees with the JDK's own literal parser (which never does DNS for literals) on random addresses. */
    @Test
    void randomAddressesRoundTripAndAgreeWithJdk() throws Exception {
        Random random = new Random(20261122L);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[random.nextBoolean() ? 4 : 16];
            random.nextBytes(bytes);
            if (bytes.length == 16 && random.nextInt(4) == 0) {
                for (int z = random.nextInt(16); z < 16 && z < 12; z++) {
                    bytes[z] = 0; // zero runs exercise "::"
                }
            }
            IpAddress address = IpAddress.ofBytes(bytes);
            String text = address.toString();
            assertThat(IpAddress.parse(text)).isEqualTo(address);
            InetAddress jdk = InetAddress.getByAddress(bytes);
            assertThat(IpAddress.ofBytes(jdk.getAddress())).isEqualTo(address);
            assertThat(IpAddress.parse(jdk.getHostAddress())).isEqualTo(address);
        }
    }
}

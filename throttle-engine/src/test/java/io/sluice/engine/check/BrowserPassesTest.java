package io.sluice.engine.check;

import static io.sluice.engine.check.PassKeyTest.DAY;
import static io.sluice.engine.check.PassKeyTest.seeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.net.IpAddress;
import java.util.Base64;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrowserPassesTest {

    static final String CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36";
    static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    static final IpAddress HOME = IpAddress.parse("198.51.100.23");
    static final long NOW = 1_790_000_000_000L;

    private final PassKey key = PassKey.random(seeded(11));
    private final BrowserPasses passes = new BrowserPasses(PassKeyRing.of(key));

    @Test
    void aMintedPassChecksWithWhatItSays() {
        String cookie = passes.mint("abcDEF012-_x", false, HOME, CHROME, NOW + 7 * DAY);
        assertThat(cookie.length()).isLessThan(100);
        assertThat(passes.check(cookie, HOME, CHROME, NOW)).isEqualTo(new Pass("abcDEF012-_x", NOW + 7 * DAY, false));
        String weak = passes.mint("w", true, HOME, CHROME, NOW + 1);
        assertThat(passes.check(weak, HOME, CHROME, NOW)).isEqualTo(new Pass("w", NOW + 1, true));
        String longest = passes.mint("x".repeat(32), true, HOME, CHROME, Long.MAX_VALUE);
        assertThat(longest.length()).isLessThanOrEqualTo(84);
        assertThat(passes.check(longest, HOME, CHROME, NOW)).isEqualTo(new Pass("x".repeat(32), Long.MAX_VALUE, true));
    }

    @Test
    void aPassIdIsShortBase64Url() {
        for (String bad : new String[] {"", "x".repeat(33), "a b", "a=", "a/", "é", null}) {
            assertThatThrownBy(() -> passes.mint(bad, false, HOME, CHROME, NOW))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void isBoundToTheNetworkNotTheAddress() {
        String cookie = passes.mint("id", false, HOME, CHROME, NOW + DAY);
        assertThat(passes.check(cookie, IpAddress.parse("198.51.100.200"), CHROME, NOW)).isNotNull();
        assertThat(passes.check(cookie, IpAddress.parse("198.51.101.23"), CHROME, NOW)).isNull();
        assertThat(passes.check(cookie, IpAddress.parse("::ffff:198.51.100.1"), CHROME, NOW))
                .as("the IPv4-mapped form is the IPv4 address").isNotNull();

        IpAddress phone = IpAddress.parse("2001:db8:1:2:aaaa::1");
        String mobile = passes.mint("id", false, phone, CHROME, NOW + DAY);
        assertThat(passes.check(mobile, IpAddress.parse("2001:db8:1:2:bbbb:cccc:dddd:eeee"), CHROME, NOW))
                .isNotNull();
        assertThat(passes.check(mobile, IpAddress.parse("2001:db8:1:3:aaaa::1"), CHROME, NOW)).isNull();
        assertThat(passes.check(mobile, HOME, CHROME, NOW)).isNull();
        assertThat(passes.check(cookie, IpAddress.parse("c633:6417::"), CHROME, NOW))
                .as("an IPv6 network whose first bytes spell the IPv4 one").isNull();
    }

    @Test
    void namesTheNetworkItIsBoundTo() {
        assertThat(BrowserPasses.network(HOME)).isEqualTo("198.51.100.0/24");
        assertThat(BrowserPasses.network(IpAddress.parse("2001:db8:1:2:aaaa::1"))).isEqualTo("2001:db8:1:2::/64");
        assertThat(BrowserPasses.network(IpAddress.parse("::1"))).isEqualTo("::/64");
    }

    @Test
    void isBoundToTheUserAgentAsTheEngineCutsIt() {
        String cookie = passes.mint("id", false, HOME, CHROME, NOW + DAY);
        assertThat(passes.check(cookie, HOME, FIREFOX, NOW)).isNull();
        assertThat(passes.check(cookie, HOME, null, NOW)).isNull();
        assertThat(passes.check(cookie, HOME, CHROME + " ", NOW)).isNull();
        String none = passes.mint("id", false, HOME, null, NOW + DAY);
        assertThat(passes.check(none, HOME, "", NOW)).isNotNull();
        String huge = "Mozilla/5.0 " + "x".repeat(600);
        String cut = passes.mint("id", false, HOME, huge, NOW + DAY);
        assertThat(passes.check(cut, HOME, huge.substring(0, 512), NOW)).isNotNull();
        assertThat(passes.check(cut, HOME, huge + "yyy", NOW)).isNotNull();
    }

    @Test
    void expires() {
        String cookie = passes.mint("id", false, HOME, CHROME, NOW + DAY);
        assertThat(passes.check(cookie, HOME, CHROME, NOW + DAY - 1)).isNotNull();
        assertThat(passes.check(cookie, HOME, CHROME, NOW + DAY)).isNull();
        assertThat(passes.check(cookie, HOME, CHROME, Long.MAX_VALUE)).isNull();
    }

    @Test
    void anEditedPassIsNoPass() {
        String cookie = passes.mint("abcdefghijkl", false, HOME, CHROME, NOW + DAY);
        byte[] bytes = Base64.getUrlDecoder().decode(cookie);
        for (int i = 0; i < bytes.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] edited = bytes.clone();
                edited[i] ^= (byte) (1 << bit);
                String text = Base64.getUrlEncoder().withoutPadding().encodeToString(edited);
                assertThat(passes.check(text, HOME, CHROME, NOW)).as("byte %d bit %d", i, bit).isNull();
            }
        }
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for (int i = 0; i < cookie.length(); i++) {
            for (char c : (alphabet + "=+/. ").toCharArray()) {
                if (c != cookie.charAt(i)) {
                    String text = cookie.substring(0, i) + c + cookie.substring(i + 1);
                    assertThat(passes.check(text, HOME, CHROME, NOW)).as("char %d as %s", i, c).isNull();
                }
            }
        }
        assertThat(passes.check(cookie + "A", HOME, CHROME, NOW)).isNull();
        assertThat(passes.check(cookie + "AA", HOME, CHROME, NOW)).isNull();
        assertThat(passes.check(cookie.substring(1), HOME, CHROME, NOW)).isNull();
        assertThat(passes.check(cookie + "=", HOME, CHROME, NOW)).isNull();
    }

    @Test
    void aPassFromAnotherKeyIsNoPass() {
        BrowserPasses other = new BrowserPasses(PassKeyRing.of(PassKey.random(seeded(99))));
        String cookie = other.mint("id", false, HOME, CHROME, NOW + DAY);
        assertThat(passes.check(cookie, HOME, CHROME, NOW)).isNull();
    }

    @Test
    void aPassSignedWithARotatedOutKeyIsGoodForOnePassLifetime() {
        String old = passes.mint("old", false, HOME, CHROME, NOW + 30 * DAY);
        PassKeyRing rotated = passes.keys().rotated(PassKey.random(seeded(12)), NOW, 7 * DAY);
        passes.keys(rotated);
        assertThat(passes.keys()).isEqualTo(rotated);
        String fresh = passes.mint("new", false, HOME, CHROME, NOW + 30 * DAY);
        assertThat(passes.check(old, HOME, CHROME, NOW + 7 * DAY - 1)).isNotNull();
        assertThat(passes.check(old, HOME, CHROME, NOW + 7 * DAY)).isNull();
        assertThat(passes.check(fresh, HOME, CHROME, NOW + 7 * DAY)).isNotNull();

        passes.keys(rotated.rotated(PassKey.random(seeded(13)), NOW + DAY, 7 * DAY));
        assertThat(passes.check(old, HOME, CHROME, NOW + DAY)).as("retired at the next rotation").isNull();
        assertThat(passes.check(fresh, HOME, CHROME, NOW + DAY)).isNotNull();
    }

    @Test
    void threadsShareOnePassesAndSeeARotation() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                String id = "t" + t;
                results.add(pool.submit(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        String cookie = passes.mint(id, false, HOME, CHROME, NOW + DAY);
                        Pass pass = passes.check(cookie, HOME, CHROME, NOW);
                        if (pass == null || !pass.id().equals(id)) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get()).isTrue();
            }
            String before = passes.mint("x", false, HOME, CHROME, NOW + DAY);
            passes.keys(PassKeyRing.of(PassKey.random(seeded(14))));
            assertThat(pool.submit(() -> passes.check(before, HOME, CHROME, NOW)).get())
                    .as("a pool thread with Macs for the old ring sees the new one").isNull();
        } finally {
            pool.shutdownNow();
        }
    }
}

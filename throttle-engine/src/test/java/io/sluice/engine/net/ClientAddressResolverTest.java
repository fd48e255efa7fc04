package io.sluice.engine.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.Request;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientAddressResolverTest {

    private static final CidrSet TRUSTED = CidrSet.parse(List.of("10.0.0.0/8", "2001:db8:ffff::/48"));
    private final ClientAddressResolver xff = new ClientAddressResolver(TRUSTED, "X-Forwarded-For");
    private final ClientAddressResolver rfc7239 = new ClientAddressResolver(TRUSTED, "forwarded");

    /** The policy names X-Forwarded-For when {@code forwarded} is null, else Forwarded. */
    private String resolve(String peer, String xffValue, String forwarded) {
        return forwarded == null ? xff.resolve(peer, xffValue).toString() : rfc7239.resolve(peer, forwarded).toString();
    }

    @Test
    void untrustedPeerIsTheClientWhateverItSends() {
        assertThat(resolve("203.0.113.5", "1.1.1.1", null)).isEqualTo("203.0.113.5");
        assertThat(resolve("203.0.113.5", null, "for=1.1.1.1")).isEqualTo("203.0.113.5");
        assertThat(resolve("203.0.113.5", "10.0.0.1", null)).isEqualTo("203.0.113.5");
        assertThat(resolve("::ffff:203.0.113.5", "1.1.1.1", null)).isEqualTo("203.0.113.5");
    }

    @Test
    void trustedPeerWithoutHeaderIsTheClient() {
        assertThat(resolve("10.0.0.1", null, null)).isEqualTo("10.0.0.1");
        assertThat(resolve("10.0.0.1", "  ", "")).isEqualTo("10.0.0.1");
    }

    @Test
    void walksXForwardedForFromTheRight() {
        assertThat(resolve("10.0.0.1", "198.51.100.9", null)).isEqualTo("198.51.100.9");
        assertThat(resolve("10.0.0.1", "198.51.100.9, 10.0.0.2", null)).isEqualTo("198.51.100.9");
        assertThat(resolve("10.0.0.1", "198.51.100.9,10.0.0.3 ,\t10.0.0.2", null)).isEqualTo("198.51.100.9");
        assertThat(resolve("10.0.0.1", "10.0.0.9, 10.0.0.2", null)).isEqualTo("10.0.0.9"); // all trusted
        assertThat(resolve("10.0.0.1", "198.51.100.9:4711", null)).isEqualTo("198.51.100.9");
        assertThat(resolve("10.0.0.1", "2001:db8::7", null)).isEqualTo("2001:db8::7");
        assertThat(resolve("10.0.0.1", "[2001:db8::7]:443", null)).isEqualTo("2001:db8::7");
        assertThat(resolve("2001:db8:ffff::1", "198.51.100.9", null)).isEqualTo("198.51.100.9");
        assertThat(resolve("10.0.0.1", "198.51.100.9,, 10.0.0.2", null)).isEqualTo("198.51.100.9");
    }

    @Test
    void spoofedLeftEntriesAreNeverRead() {
        // the client sent "X-Forwarded-For: 10.0.0.50, 127.0.0.1" hoping to look trusted or local;
        // the proxy appended the real client
        assertThat(resolve("10.0.0.1", "127.0.0.1, 10.0.0.50, 198.51.100.9", null)).isEqualTo("198.51.100.9");
        assertThat(resolve("10.0.0.1", "8.8.8.8, 198.51.100.9", null)).isEqualTo("198.51.100.9");
    }

    @Test
    void malformedEntryStopsTheWalkAtTheLastTrustedHop() {
        assertThat(resolve("10.0.0.1", "198.51.100.9, unknown", null)).isEqualTo("10.0.0.1");
        assertThat(resolve("10.0.0.1", "198.51.100.9, garbage, 10.0.0.2", null)).isEqualTo("10.0.0.2");
        assertThat(resolve("10.0.0.1", "198.51.100.9, 10.0.0.2:99999", null)).isEqualTo("10.0.0.1");
        assertThat(resolve("10.0.0.1", "1.2.3.4 5.6.7.8", null)).isEqualTo("10.0.0.1");
        assertThat(resolve("10.0.0.1", "[1.2.3.4]", null)).isEqualTo("10.0.0.1");
        assertThat(resolve("10.0.0.1", "fe80::1%eth0", null)).isEqualTo("fe80::1");
    }

    @Test
    void hopLimitBoundsTheWork() {
        String many = "198.51.100.9" + ", 10.0.0.2".repeat(ClientAddressResolver.MAX_HOPS + 5);
        assertThat(resolve("10.0.0.1", many, null)).isEqualTo("10.0.0.2");
        String justEnough = "198.51.100.9" + ", 10.0.0.2".repeat(ClientAddressResolver.MAX_HOPS - 1);
        assertThat(resolve("10.0.0.1", justEnough, null)).isEqualTo("198.51.100.9");
    }

    @Test
    void walksForwarded() {
        assertThat(resolve("10.0.0.1", null, "for=198.51.100.9")).isEqualTo("198.51.100.9");
        assertThat(resolve("10.0.0.1", null, "For=\"198.51.100.9:80\";proto=https;by=10.0.0.1"))
                .isEqualTo("198.51.100.9");
        assertThat(resolve("10.0.0.1", null, "for=\"[2001:db8:cafe::17]:4711\"")).isEqualTo("2001:db8:cafe::17");
        assertThat(resolve("10.0.0.1", null, "for=192.0.2.43, for=10.0.0.7")).isEqualTo("192.0.2.43");
        assertThat(resolve("10.0.0.1", null, "for=1.1.1.1;proto=http, for=\"[2001:db8:ffff::2]\""))
                .isEqualTo("1.1.1.1");
    }

    @Test
    void forwardedMalformationsStopAtLastTrusted() {
        assertThat(resolve("10.0.0.1", null, "for=198.51.100.9, for=unknown")).isEqualTo("10.0.0.1");
        assertThat(resolve("10.0.0.1", null, "for=198.51.100.9, for=_hidden, for=10.0.0.3"))
                .isEqualTo("10.0.0.3");
        assertThat(resolve("10.0.0.1", null, "for=198.51.100.9, proto=https")).isEqualTo("10.0.0.1");
        assertThat(resolve("10.0.0.1", null, "for=\"2001:db8::1\"")).isEqualTo("10.0.0.1"); // needs brackets
        assertThat(resolve("10.0.0.1", null, "for=198.51.100.9:80")).isEqualTo("10.0.0.1"); // must be quoted
        // an unclosed quote from the client swallows what the proxy appended: trust nothing but the peer
        assertThat(resolve("10.0.0.1", null, "for=\"1.1.1.1, for=198.51.100.9")).isEqualTo("10.0.0.1");
        assertThat(resolve("10.0.0.1", null, "for=1.1.1.1;for=2.2.2.2")).isEqualTo("10.0.0.1");
    }

    @Test
    void onlyTheHeaderThePolicyNamesIsWalkedAndASingleAddressHeaderWorksLikeAList() {
        ClientAddressResolver cloudflare = new ClientAddressResolver(TRUSTED, "CF-Connecting-IP");
        assertThat(cloudflare.resolve("10.0.0.1", "198.51.100.9")).hasToString("198.51.100.9");
        assertThat(cloudflare.resolve("203.0.113.5", "198.51.100.9")).hasToString("203.0.113.5");
        // the resolver is handed one header's value: with Forwarded named, an X-Forwarded-For value is never seen
        assertThat(rfc7239.resolve("10.0.0.1", null)).hasToString("10.0.0.1");
    }

    @Test
    void requestFormAndBadPeer() {
        Request request = Request.direct("198.51.100.9", "ua").via("10.0.0.1", "198.51.100.9");
        assertThat(xff.resolve(request)).hasToString("198.51.100.9");
        assertThatThrownBy(() -> xff.resolve("not-an-ip", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ClientAddressResolver(null, "X-Forwarded-For"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

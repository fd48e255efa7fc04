package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The admin address a node gives the fleet: never loopback for a listener on every interface, when it has others. */
class AdvertisedAddressTest {
    @Test
    void aListenerBoundToOneAddressAdvertisesThatAddress() {
        RedisEndpoint redis = RedisEndpoint.parse("redis://10.0.0.5:6379", null);

        assertThat(AdvertisedAddress.of(URI.create("https://10.0.0.11:9090/"), redis))
                .isEqualTo(URI.create("https://10.0.0.11:9090/"));
        assertThat(AdvertisedAddress.of(URI.create("http://127.0.0.1:9090/"), redis))
                .isEqualTo(URI.create("http://127.0.0.1:9090/"));
    }

    @Test
    void onEveryInterfaceItAdvertisesTheAddressTowardRedis() {
        InetAddress mine = AdvertisedAddress.firstInterfaceAddress();
        assumeTrue(mine != null, "this machine has an address other than loopback");
        String host = mine.getHostAddress();
        RedisEndpoint redis = new RedisEndpoint(false, host, 6379, 0, null, null);

        URI advertised = AdvertisedAddress.of(URI.create("https://0.0.0.0:9090/"), redis);

        assertThat(advertised.getHost().replace("[", "").replace("]", "")).isEqualTo(host);
        assertThat(advertised.getPort()).isEqualTo(9090);
        assertThat(advertised.getScheme()).isEqualTo("https");
        assertThat(AdvertisedAddress.of(URI.create("http://[::]:9090/"), redis).getHost())
                .as("IPv6's every interface too").isNotIn("[::]", "127.0.0.1");
    }

    @Test
    void withRedisOnThisMachineItStillAdvertisesAnAddressOtherMachinesCanReach() {
        InetAddress mine = AdvertisedAddress.firstInterfaceAddress();
        assumeTrue(mine != null, "this machine has an address other than loopback");

        URI advertised = AdvertisedAddress.of(URI.create("http://0.0.0.0:9090/"),
                RedisEndpoint.parse("redis://127.0.0.1:6379", null));

        assertThat(advertised.getHost()).isNotEqualTo("127.0.0.1").isNotEqualTo("0.0.0.0");
        assertThat(advertised).isEqualTo(URI.create("http://" + (mine.getHostAddress().contains(":")
                ? "[" + mine.getHostAddress() + "]" : mine.getHostAddress()) + ":9090/"));
    }
}

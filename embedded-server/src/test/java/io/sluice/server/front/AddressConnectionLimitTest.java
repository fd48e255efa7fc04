package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.net.IpAddress;
import org.junit.jupiter.api.Test;

/** What one "address" is for the per-address cap (the sockets are in {@link ConnectionGuardTest}). */
class AddressConnectionLimitTest {
    @Test
    void anIpv6HostIsCountedByItsSlash64() {
        IpAddress one = IpAddress.parse("2001:db8:1:2::1");
        IpAddress sameSlash64 = IpAddress.parse("2001:db8:1:2:ffff:ffff:ffff:fffe");
        IpAddress nextSlash64 = IpAddress.parse("2001:db8:1:3::1");

        assertThat(AddressConnectionLimit.key(one)).isEqualTo(AddressConnectionLimit.key(sameSlash64))
                .isNotEqualTo(AddressConnectionLimit.key(nextSlash64));
    }

    @Test
    void anIpv4AddressIsCountedAlone() {
        assertThat(AddressConnectionLimit.key(IpAddress.parse("192.0.2.1")))
                .isNotEqualTo(AddressConnectionLimit.key(IpAddress.parse("192.0.2.2")))
                .isEqualTo(IpAddress.parse("192.0.2.1"));
    }
}

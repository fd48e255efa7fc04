package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HostPortTest {

    @Test
    void parsesIpv4AndBracketedIpv6() {
        assertThat(HostPort.parse("127.0.0.1:9090")).isEqualTo(new HostPort("127.0.0.1", 9090));
        assertThat(HostPort.parse("[::1]:8080")).isEqualTo(new HostPort("::1", 8080));
        assertThat(new HostPort("::1", 8080)).hasToString("[::1]:8080");
    }

    @Test
    void rejectsAddressesWithoutAValidPort() {
        assertThatThrownBy(() -> HostPort.parse("localhost")).hasMessageContaining("HOST:PORT");
        assertThatThrownBy(() -> HostPort.parse("localhost:http")).hasMessageContaining("not a number");
        assertThatThrownBy(() -> HostPort.parse("localhost:70000")).hasMessageContaining("0-65535");
    }
}

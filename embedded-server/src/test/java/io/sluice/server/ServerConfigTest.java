package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.cluster.ClusterOptions;
import io.sluice.server.cluster.RedisEndpoint;
import io.sluice.server.front.AccessLog;
import io.sluice.server.tls.AdminTls;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The withers: each changes its one component and keeps every other, through the constructor's checks. */
class ServerConfigTest {
    /** No component at its default, so a wither that dropped one back to it would show. */
    private static final ServerConfig BASE = new ServerConfig(new HostPort("127.0.0.1", 8080),
            URI.create("http://127.0.0.1:9000/"), new HostPort("127.0.0.1", 9090), Path.of("/var/lib/sluice"),
            Path.of("/etc/sluice/policy.json"), false, false, "-", Duration.ofSeconds(5),
            Path.of("/etc/sluice/crawlers.json"), AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED),
            ConnectionLimits.DEFAULTS.withFrontMaxConnections(20),
            new ClusterOptions(RedisEndpoint.parse("redis://127.0.0.1:6379", null), "web-1"), ForwardingPath.PROXY,
            AccessLog.Format.JSON);

    static Stream<Arguments> withers() {
        URI site = URI.create("http://127.0.0.1:9001/");
        AdminOptions plain = AdminOptions.DEFAULTS;
        ConnectionLimits limits = ConnectionLimits.DEFAULTS.withFrontMaxConnections(30);
        ClusterOptions other = new ClusterOptions(RedisEndpoint.parse("redis://127.0.0.1:6380", null), "web-2");
        return Stream.of(
                Arguments.of("upstream", (UnaryOperator<ServerConfig>) c -> c.withUpstream(site), site),
                Arguments.of("demoTraffic", (UnaryOperator<ServerConfig>) c -> c.withDemoTraffic(true), true),
                Arguments.of("adminOptions", (UnaryOperator<ServerConfig>) c -> c.withAdminOptions(plain), plain),
                Arguments.of("limits", (UnaryOperator<ServerConfig>) c -> c.withLimits(limits), limits),
                Arguments.of("frontPath", (UnaryOperator<ServerConfig>) c -> c.withFrontPath(ForwardingPath.LEAN),
                        ForwardingPath.LEAN),
                Arguments.of("accessLogFormat",
                        (UnaryOperator<ServerConfig>) c -> c.withAccessLogFormat(AccessLog.Format.NCSA),
                        AccessLog.Format.NCSA),
                Arguments.of("cluster", (UnaryOperator<ServerConfig>) c -> c.withCluster(other), other),
                Arguments.of("cluster", (UnaryOperator<ServerConfig>) c -> c.withCluster(null), null));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("withers")
    void eachWitherChangesItsOneComponentAndKeepsEveryOther(String component, UnaryOperator<ServerConfig> wither,
                                                             Object value) throws Exception {
        ServerConfig changed = wither.apply(BASE);

        for (RecordComponent each : ServerConfig.class.getRecordComponents()) {
            Object after = each.getAccessor().invoke(changed);
            if (each.getName().equals(component)) {
                assertThat(after).as(component).isEqualTo(value);
            } else {
                assertThat(after).as(each.getName()).isEqualTo(each.getAccessor().invoke(BASE));
            }
        }
    }

    @Test
    void aCopyIsCheckedByTheConstructorLikeAnyOther() {
        assertThatThrownBy(() -> BASE.withUpstream(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("upstream");
        assertThat(BASE.withFrontPath(null).frontPath()).as("null is the default, as in the constructor")
                .isEqualTo(ForwardingPath.LEAN);
    }
}

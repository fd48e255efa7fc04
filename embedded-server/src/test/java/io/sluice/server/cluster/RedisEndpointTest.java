package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class RedisEndpointTest {

    @Test
    void hostPortAndDatabaseComeFromTheUrlWithRedisDefaults() {
        assertThat(RedisEndpoint.parse("redis://cache.internal", null))
                .isEqualTo(new RedisEndpoint(false, "cache.internal", 6379, 0, null, null));
        assertThat(RedisEndpoint.parse("redis://10.0.0.5:6380/3", null))
                .isEqualTo(new RedisEndpoint(false, "10.0.0.5", 6380, 3, null, null));
        assertThat(RedisEndpoint.parse("redis://[::1]:7000", null).host()).isEqualTo("::1");
    }

    @Test
    void aBadUrlIsRefusedWithoutShowingItsUserOrPassword() {
        for (String url : List.of("redis://:hunter2@127.0.0.1:notaport/0", "rediss://admin:hunter2@[::1/0",
                "redis://:hunter2@cache/zero", "redis-cluster://:hunter2@a:1,,b:2", "redis-cluster://:hunter2@a:1/3",
                "redis-cluster://:hunter2@a:1,b:x", "http://:hunter2@cache")) {
            assertThatThrownBy(() -> RedisEndpoint.parse(url, null)).as(url)
                    .isInstanceOf(IllegalArgumentException.class).hasNoCause()
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2").doesNotContain("admin"));
        }
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://:hunter2@127.0.0.1:notaport/0", null))
                .hasMessageContaining("'redis://***@127.0.0.1:notaport/0'");
    }

    @Test
    void aPasswordWithAnAtOrAQuoteIsRedactedWholeAndReadWhole() {
        for (String url : List.of("redis://:hunter2@x7@127.0.0.1:notaport/0", "redis://:it's-hunter2@cache:notaport",
                "redis://admin:hunter2'x7@@cache/zero", "redis-cluster://:hunter2@x7@a:1,b:x",
                "redis://:hunter2/x7@cache:99999", "redis://:hunter2%zz@cache", "http://admin:'hunter2@x7@cache")) {
            assertThatThrownBy(() -> RedisEndpoint.parse(url, null)).as(url)
                    .isInstanceOf(IllegalArgumentException.class).hasNoCause()
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2").doesNotContain("x7")
                            .doesNotContain("admin"));
        }
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://:hunter2@x7@127.0.0.1:notaport/0", null))
                .hasMessageContaining("'redis://***@127.0.0.1:notaport/0'");

        RedisEndpoint endpoint = RedisEndpoint.parse("redis://sluice:p@ss'w/rd:x@cache:6380/2", null);
        assertThat(endpoint.username()).isEqualTo("sluice");
        assertThat(endpoint.password()).isEqualTo("p@ss'w/rd:x");
        assertThat(endpoint.host()).isEqualTo("cache");
        assertThat(endpoint.port()).isEqualTo(6380);
        assertThat(endpoint.database()).isEqualTo(2);
        assertThat(endpoint.toString()).isEqualTo("redis://sluice:***@cache:6380/2");
        assertThat(RedisEndpoint.parse("rediss-cluster://:p@ss@a:7000,b:7001", null).password()).isEqualTo("p@ss");
    }

    @Test
    void redissMeansTls() {
        RedisEndpoint tls = RedisEndpoint.parse("rediss://cache.internal:6380", null);
        assertThat(tls.tls()).isTrue();
        assertThat(tls.toRedisUri().isSsl()).isTrue();
    }

    @Test
    void thePasswordComesFromTheUrlElseFromTheEnvironmentAndIsNeverShown() {
        RedisEndpoint inUrl = RedisEndpoint.parse("redis://:s3cr%40t@cache:6379/1", "from-env");
        RedisEndpoint withUser = RedisEndpoint.parse("redis://sluice:pw@cache", null);
        RedisEndpoint fromEnv = RedisEndpoint.parse("redis://cache", "from-env");

        assertThat(inUrl.password()).isEqualTo("s3cr@t");
        assertThat(withUser.username()).isEqualTo("sluice");
        assertThat(withUser.password()).isEqualTo("pw");
        assertThat(fromEnv.password()).isEqualTo("from-env");
        assertThat(inUrl.toString()).isEqualTo("redis://:***@cache:6379/1").doesNotContain("s3cr");
        assertThat(withUser.toString()).isEqualTo("redis://sluice:***@cache:6379/0");
    }

    @Test
    void aRedisClusterIsItsSeedsWithOneUserPasswordAndTls() {
        RedisEndpoint cluster = RedisEndpoint.parse("redis-cluster://10.0.0.1:7000,10.0.0.2,[::1]:7002", "from-env");
        RedisEndpoint tls = RedisEndpoint.parse("rediss-cluster://sluice:pw@a:7000,b:7001/0", null);

        assertThat(cluster.cluster()).isTrue();
        assertThat(cluster.seeds()).containsExactly(new RedisEndpoint.Seed("10.0.0.1", 7000),
                new RedisEndpoint.Seed("10.0.0.2", 6379), new RedisEndpoint.Seed("::1", 7002));
        assertThat(cluster.host()).isEqualTo("10.0.0.1");
        assertThat(cluster.password()).isEqualTo("from-env");
        assertThat(cluster.seedUris()).extracting(uri -> uri.getHost() + " " + uri.getPort())
                .containsExactly("10.0.0.1 7000", "10.0.0.2 6379", "::1 7002");
        assertThat(tls.tls()).isTrue();
        assertThat(tls.username()).isEqualTo("sluice");
        assertThat(tls.seedUris()).allSatisfy(uri -> assertThat(uri.isSsl()).isTrue());
        assertThat(tls.toString()).isEqualTo("rediss-cluster://sluice:***@a:7000,b:7001").doesNotContain("pw");
        assertThat(RedisEndpoint.parse("redis://cache", null).cluster()).isFalse();
    }

    @Test
    void badClusterUrlsSayWhatIsWrong() {
        assertThatThrownBy(() -> RedisEndpoint.parse("redis-cluster://a:7000,,b:7001", null))
                .hasMessageContaining("lists seeds");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis-cluster://a:7000/2", null))
                .hasMessageContaining("only database 0");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis-cluster://a:7000,b:99999", null))
                .hasMessageContaining("port").hasMessageContaining("seed 'b:99999'");
    }

    @Test
    void badUrlsSayWhatIsWrong() {
        assertThatThrownBy(() -> RedisEndpoint.parse("localhost:6379", null))
                .hasMessageContaining("redis:// or rediss://");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://", null)).hasMessageContaining("not a Redis URL");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis:///0", null)).hasMessageContaining("needs a host");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://cache/x", null)).hasMessageContaining("database");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://cache?db=1", null)).hasMessageContaining("query");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://cache:99999", null)).hasMessageContaining("port");
    }
}

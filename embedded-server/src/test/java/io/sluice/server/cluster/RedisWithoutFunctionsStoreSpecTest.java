package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testkit.TestRedis;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The per-client rules' specification on a Redis that loads no function (as before Redis 7.0, or for a user not
 * allowed {@code FUNCTION}): every per-request script runs by {@code EVALSHA}, its definitions made on each call.
 *
 * <p>What differs here is how a script is called, not what it judges: the tests marked {@link DiffersOnACluster} call
 * every per-request script (admissions, releases, flushed hits, several keys), so they run; the others would repeat
 * {@link RedisStoreSpecTest}'s run of the same scripts, at seconds of real time each.
 */
@ExtendWith(DiffersOnACluster.Only.class)
class RedisWithoutFunctionsStoreSpecTest extends RedisStoreSpecTest {
    private static TestRedis withoutFunctions;

    @BeforeAll
    static void startRedis() {
        withoutFunctions = TestRedis.startWith("--rename-command", "FUNCTION", "");
        OneRedisPerClassHolder.redis = withoutFunctions;
    }

    @AfterAll
    static void everyScriptRanByEvalsha() throws IOException {
        assertThat(withoutFunctions.info("commandstats", "cmdstat_fcall:calls=")).isZero();
        assertThat(withoutFunctions.info("commandstats", "cmdstat_evalsha:calls=")).isPositive();
    }
}

package io.sluice.server.botauth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The key directory cache's bounds (docs/manual/signed-agents.md, "Key directories"), on a manual clock. */
class KeyDirectoriesTest {

    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private final FakeFetcher fetcher = new FakeFetcher();
    private final KeyDirectories directories = new KeyDirectories(fetcher, clock, SignedAgentOptions.DEFAULTS);
    private final Signer signer = new Signer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32});

    private static AgentUrl url(String text) {
        return AgentUrl.parse(text, false);
    }

    private void advance(Duration by) {
        now.addAndGet(by.toMillis());
    }

    @Test
    void concurrentMissesShareOneFetchAndTheKeysServeUntilStale() {
        AgentUrl agent = url("https://agent.example");
        assertThat(directories.keys(agent)).isNull();
        assertThat(directories.keys(agent)).isNull();
        assertThat(fetcher.count()).isEqualTo(1);
        fetcher.last().answer(signer.directory(), 600L);
        assertThat(directories.keys(agent).key(signer.keyid())).isNotNull();
        advance(Duration.ofSeconds(599));
        directories.keys(agent);
        assertThat(fetcher.count()).isEqualTo(1);
        advance(Duration.ofSeconds(1));
        // stale: refreshed in the background, the held keys still answer meanwhile
        assertThat(directories.keys(agent)).isNotNull();
        assertThat(fetcher.count()).isEqualTo(2);
    }

    @Test
    void maxAgeIsClampedToFiveMinutesAtLeastAndADayAtMost() {
        AgentUrl agent = url("https://agent.example");
        directories.keys(agent);
        fetcher.last().answer(signer.directory(), 1L);
        advance(Duration.ofMinutes(4));
        directories.keys(agent);
        assertThat(fetcher.count()).isEqualTo(1);
        advance(Duration.ofMinutes(1));
        directories.keys(agent);
        assertThat(fetcher.count()).isEqualTo(2);
        fetcher.last().answer(signer.directory(), 10L * 365 * 86_400);
        advance(Duration.ofHours(24));
        directories.keys(agent);
        assertThat(fetcher.count()).isEqualTo(3);
    }

    @Test
    void aFailedRefreshKeepsTheKeysAndBacksOffUpToFiveMinutes() {
        AgentUrl agent = url("https://agent.example");
        directories.keys(agent);
        fetcher.last().answer(signer.directory(), 300L);
        advance(Duration.ofMinutes(5));
        directories.keys(agent);
        fetcher.last().fail();
        // an outage of the agent's directory does not revoke its keys
        assertThat(directories.keys(agent)).isNotNull();
        long[] backoffs = {30, 60, 120, 240, 300, 300};
        for (long seconds : backoffs) {
            int before = fetcher.count();
            advance(Duration.ofSeconds(seconds - 1));
            directories.keys(agent);
            assertThat(fetcher.count()).as("before %d s", seconds).isEqualTo(before);
            advance(Duration.ofSeconds(1));
            directories.keys(agent);
            assertThat(fetcher.count()).as("after %d s", seconds).isEqualTo(before + 1);
            fetcher.last().fail();
        }
        assertThat(directories.failed()).isEqualTo(1 + backoffs.length);
        // kept for a day past their freshness, then dropped
        advance(Duration.ofHours(24));
        assertThat(directories.keys(agent)).isNull();
    }

    @Test
    void aDirectoryThatAnswersWithoutTheKeyReplacesIt() {
        AgentUrl agent = url("https://agent.example");
        directories.keys(agent);
        fetcher.last().answer(signer.directory(), 300L);
        advance(Duration.ofMinutes(5));
        directories.keys(agent);
        fetcher.last().answer(Signer.rfcTestKey().directory().replace(Signer.TEST_X,
                "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"), 300L);
        assertThat(directories.keys(agent).key(signer.keyid())).isNull();
    }

    @Test
    void fetchesAreBoundedPerHostAndInAll() {
        for (int i = 0; i < 5; i++) {
            directories.keys(url("https://one.example/keys" + i));
        }
        assertThat(fetcher.count()).isEqualTo(2); // two per host
        assertThat(directories.skipped()).isEqualTo(3);
        for (int i = 0; i < 30; i++) {
            directories.keys(url("https://host" + i + ".example"));
        }
        assertThat(fetcher.count()).isEqualTo(16); // sixteen in all
        assertThat(directories.running()).isEqualTo(16);
        fetcher.calls.forEach(FakeFetcher.Call::fail);
        assertThat(directories.running()).isZero();
        // a skipped directory is not remembered as failed: the next request asks again
        directories.keys(url("https://one.example/keys4"));
        assertThat(fetcher.count()).isEqualTo(17);
    }

    @Test
    void aMalformedOrOversizedKeySetIsAFailure() {
        AgentUrl agent = url("https://agent.example");
        directories.keys(agent);
        fetcher.last().answer("{\"keys\": 3}", null);
        assertThat(directories.keys(agent)).isNull();
        advance(Duration.ofSeconds(30));
        directories.keys(agent);
        StringBuilder many = new StringBuilder("{\"keys\":[");
        for (int i = 0; i < KeyDirectory.MAX_KEYS + 1; i++) {
            many.append(i == 0 ? "" : ",").append("{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"").append(Signer.TEST_X)
                    .append("\"}");
        }
        fetcher.last().answer(many.append("]}").toString(), null);
        assertThat(directories.keys(agent)).isNull();
        assertThat(directories.failed()).isEqualTo(2);
    }
}

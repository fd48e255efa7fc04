package io.sluice.benchmarks.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "done when", end to end: a real Sluice, its permit API over HTTP, eight real worker
 * threads that poll, and a real local site that serves 5 requests per second and answers 429 above,
 * for a minute; once fast, once with latency jittered between 20 and 200 ms (both at once, two
 * domains). The rates are a few per second, so a loaded machine does not move them.
 */
// A real minute of traffic: tier 2, with the real parts (README, "Development"); tier 1 stays within minutes.
@Tag("long-run")
class GovernorPaceEndToEndTest {
    @TempDir
    Path state;

    @Test
    void eightPollingWorkersFindAFivePerSecondSiteWithinAMinute() throws Exception {
        List<PaceTrial.Result> results;
        try (SluiceServer sluice = Demo.start(ServerConfig.demo(state))) {
            results = GovernorPaceRun.runAll(GovernorPaceRun.scenarios(Duration.ofSeconds(60), 8, 5),
                    sluice.adminUri(), sluice.state().workerToken());
        }
        for (PaceTrial.Result result : results) {
            String name = result.settings().name();
            StringBuilder rows = new StringBuilder();
            for (double[] row : result.windows(5)) {
                rows.append(String.format("%n%4.0f s %5.2f req/s %4.1f%% 429", row[0], row[1], 100 * row[2]));
            }
            assertThat(result.servedRate(30, 60)).as("%s: served per second, 30-60 s%s", name, rows)
                    .isBetween(GovernorPaceRun.MIN_SERVED, GovernorPaceRun.MAX_SERVED);
            assertThat(result.share429(30, 60)).as("%s: share of 429s, 30-60 s%s", name, rows)
                    .isLessThanOrEqualTo(GovernorPaceRun.MAX_SHARE_429);
        }
    }
}

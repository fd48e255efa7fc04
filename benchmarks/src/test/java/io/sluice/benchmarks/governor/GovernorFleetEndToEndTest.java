package io.sluice.benchmarks.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.demo.Demo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet of issue #31, small enough for CI: a real Sluice, its permit API over HTTP, twelve polling worker
 * threads that each ask for any of a frontier of four real local sites of 1, 2, 3 and 5 requests per second
 * (429 above), for ten seconds. Slow start doubles every 2 s here (10 s by default) so the capacities are
 * found within the run. The margins are wide, so a busy machine passes; what they catch is a small site
 * starved by its backoff, or workers spinning on refused permits.
 */
class GovernorFleetEndToEndTest {
    /** The policy is changed as an operator changes it: through the server's PolicyChanges, audited. */
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "test");
    private static final List<Double> CAPACITIES = List.of(1.0, 2.0, 3.0, 5.0);

    @TempDir
    Path state;

    @Test
    void aFleetServesEverySiteNearItsCapacityWithoutSpinning() throws Exception {
        FleetTrial.Result result;
        try (SluiceServer sluice = Demo.start(ServerConfig.demo(state))) {
            GovernorPolicy quick = GovernorPolicy.DEFAULTS.withIncrease(GovernorPolicy.DEFAULTS.increasePerSecond(), 2);
            sluice.policyChanges().edit(OPERATOR, p -> p.withGovernor(quick));
            result = FleetTrial.run(new FleetTrial.Settings(12, Duration.ofSeconds(10), CAPACITIES, 20, 100, 2_000),
                    sluice.adminUri(), sluice.state().workerToken());
        }
        StringBuilder sites = new StringBuilder();
        for (int site = 0; site < CAPACITIES.size(); site++) {
            sites.append(String.format("%n%.0f req/s: %.2f served/s from 5 s, %.0f%% 429", CAPACITIES.get(site),
                    result.served(site, 5, 10), 100 * result.share429(site, 5, 10)));
        }
        for (int site = 0; site < CAPACITIES.size(); site++) {
            assertThat(result.siteShare(site, 5, 10)).as("site %d's share of its capacity, 5-10 s%s", site, sites)
                    .isGreaterThanOrEqualTo(0.4);
        }
        assertThat(result.fleetShare(5, 10)).as("the fleet's capacity used, 5-10 s%s", sites)
                .isGreaterThanOrEqualTo(0.5);
        assertThat(result.share429(-1, 0, 10)).as("429 share%s", sites).isLessThanOrEqualTo(0.15);
        assertThat(result.callsPerGrant()).as("permit calls per granted fetch (%d calls, %d grants)",
                result.permitCalls(), result.grants()).isLessThanOrEqualTo(3.0);
    }
}

package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A permit for any of a worker's frontier of domains (issue #31): the call checked before anything is learned.
 * Which domain it grants is a rule of embedded-server's {@code GovernorSpecification}, run on this governor and
 * on the cluster's ledger.
 */
class AnyDomainPermitTest {
    private final SimClock clock = new SimClock();
    private final CrawlGovernor governor =
            new CrawlGovernor(clock, () -> GovernorPolicy.DEFAULTS, new SplittableRandom(3), 1_000, Map.of());

    @Test
    void aFrontierSliceIsBoundedAndMustNameHosts() {
        assertThatThrownBy(() -> governor.acquireAny(List.of())).isInstanceOf(IllegalArgumentException.class);
        List<String> tooMany = IntStream.rangeClosed(0, CrawlGovernor.MAX_PERMIT_DOMAINS)
                .mapToObj(i -> "d" + i + ".example").toList();
        assertThatThrownBy(() -> governor.acquireAny(tooMany)).hasMessageContaining("at most 100 domains");
        assertThatThrownBy(() -> governor.acquireAny(List.of("ok.example", "not a host")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(governor.snapshot().domains()).as("nothing learned from a refused call").isEmpty();
    }
}

package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** A permit for any of a worker's frontier of domains (issue #31): the first ready, each at its pace. */
class AnyDomainPermitTest {
    private final SimClock clock = new SimClock();
    private final CrawlGovernor governor =
            new CrawlGovernor(clock, () -> GovernorPolicy.DEFAULTS, new SplittableRandom(3), 1_000, Map.of());

    @Test
    void grantsTheDomainWhoseSlotComesFirstAndNamesIt() {
        List<String> frontier = List.of("a.example", "b.example", "c.example");
        assertThat(governor.acquireAny(frontier)).isEqualTo(Permit.grant("a.example"));
        clock.advance(Duration.ofMillis(10));
        assertThat(governor.acquireAny(frontier)).isEqualTo(Permit.grant("b.example"));
        clock.advance(Duration.ofMillis(10));
        assertThat(governor.acquireAny(frontier)).isEqualTo(Permit.grant("c.example"));

        clock.advance(Duration.ofMillis(380));
        Permit none = governor.acquireAny(frontier);
        assertThat(none.granted()).isFalse();
        assertThat(none.domain()).as("the one that opens first").isEqualTo("a.example");
        assertThat(none.reason()).isEqualTo(PermitReason.PACING);
        assertThat(none.waitMillis()).isEqualTo(600);
        clock.advance(Duration.ofMillis(700));
        assertThat(governor.acquireAny(List.of("c.example", "b.example", "a.example")).domain())
                .as("the slot that opened first, whatever the order asked").isEqualTo("a.example");
    }

    @Test
    void aBlockedOrGivenUpDomainIsPassedOverAndAllGivenUpIsGivenUp() {
        governor.report(Feedback.of("floor.example", 429, 30).withRetryAfter(60));
        for (int i = 0; i < GovernorPolicy.DEFAULTS.giveUpAfterErrors(); i++) {
            governor.report(Feedback.of("dead.example", 500, 30));
        }
        assertThat(governor.acquireAny(List.of("dead.example", "floor.example", "ok.example")))
                .isEqualTo(Permit.grant("ok.example"));
        Permit floored = governor.acquireAny(List.of("dead.example", "floor.example"));
        assertThat(floored.domain()).isEqualTo("floor.example");
        assertThat(floored.reason()).isEqualTo(PermitReason.RETRY_AFTER);
        assertThat(governor.acquireAny(List.of("dead.example")).reason()).isEqualTo(PermitReason.GIVEN_UP);
    }

    @Test
    void withMoreWorkersThanSlotsGrantsGoRoundTheDomainsAndNoneWaitsLongerThanItsPace() {
        Map<String, Double> rates = Map.of("one.example", 1.0, "two.example", 2.0, "five.example", 5.0,
                "ten.example", 10.0);
        rates.forEach(governor::setRate);
        List<String> frontier = List.of("ten.example", "five.example", "two.example", "one.example");
        Map<String, List<Double>> grants = new HashMap<>();
        // One worker always at the door (as many polling workers are): asks, and comes back when told.
        while (clock.seconds() < 60) {
            Permit permit = governor.acquireAny(frontier);
            if (permit.granted()) {
                grants.computeIfAbsent(permit.domain(), d -> new ArrayList<>()).add(clock.seconds());
            } else {
                clock.advance(Duration.ofMillis(permit.waitMillis()));
            }
        }
        rates.forEach((domain, rate) -> {
            List<Double> times = grants.get(domain);
            assertThat(times.size() / 60.0).as("%s grants per second", domain).isBetween(0.95 * rate, 1.05 * rate);
            double longest = IntStream.range(1, times.size()).mapToDouble(i -> times.get(i) - times.get(i - 1))
                    .max().orElseThrow();
            assertThat(longest).as("%s: longest gap between grants, s", domain).isLessThanOrEqualTo(1 / rate + 0.002);
        });
    }

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

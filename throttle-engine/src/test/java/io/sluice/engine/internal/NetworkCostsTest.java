package io.sluice.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.RequestClass;
import io.sluice.engine.RequestCost;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.telemetry.Cost;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The networks' cost table and the links clients keep to their network's window. */
class NetworkCostsTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final RequestCost COST = new RequestCost(1_000, 2_000, 10, 20);
    private final NetworkCosts costs = new NetworkCosts(100, Duration.ofHours(1), NOW);

    @Test
    void aLinkedWindowIsCountedOnWhileTheTableHoldsIt() {
        IpAddress address = IpAddress.parse("203.0.113.9");
        CostWindow first = costs.record(address, null, RequestClass.BOT, "/", 1, COST, NOW);
        CostWindow again = costs.record(IpAddress.parse("203.0.113.10"), first, RequestClass.BOT, "/", 1, COST, NOW);

        assertThat(again).isSameAs(first);
        assertThat(first.sample(NOW).cost()).isEqualTo(new Cost(2, 2, 4, 2, 20, 40));
    }

    @Test
    void anEvictedWindowIsNotCountedOnTheNetworkIsLookedUpAgain() {
        IpAddress address = IpAddress.parse("2001:db8:1:2::9");
        CostWindow linked = costs.record(address, null, RequestClass.BROWSER, "/", 1, COST, NOW);
        long later = NOW + Duration.ofHours(1).toMillis() + 10_000;
        costs.record(IpAddress.parse("192.0.2.1"), null, RequestClass.BOT, "/", 1, COST, later);
        costs.stats(); // the table's upkeep: the network idle for an hour expires
        assertThat(linked.isEvicted()).isTrue();

        CostWindow fresh = costs.record(address, linked, RequestClass.BROWSER, "/", 1, COST, later);

        assertThat(fresh).isNotSameAs(linked);
        assertThat(fresh.sample(later).cost().requests()).isEqualTo(1);
    }

    @Test
    void theTableEvictsAndMarksWhatItEvicts() {
        List<CostWindow> windows = new ArrayList<>();
        for (int network = 0; network < 1_000; network++) {
            windows.add(costs.record(IpAddress.parse("10." + network / 256 + "." + network % 256 + ".1"), null,
                    RequestClass.BOT, "/", 1, COST, NOW));
        }
        assertThat(costs.stats().evicted()).isGreaterThanOrEqualTo(900);
        assertThat(costs.stats().tracked()).isLessThanOrEqualTo(100);
        assertThat(windows.stream().filter(CostWindow::isEvicted).count()).as("every evicted window is marked")
                .isEqualTo(costs.stats().evicted());
        assertThat(costs.totalsByClass().get(RequestClass.BOT).requests()).isEqualTo(1_000);
    }
}

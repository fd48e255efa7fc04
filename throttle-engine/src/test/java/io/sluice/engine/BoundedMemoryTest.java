package io.sluice.engine;

import static io.sluice.engine.EngineFixture.CURL;
import static io.sluice.engine.EngineFixture.decide;
import static io.sluice.engine.EngineFixture.refused;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClientTableStats;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BoundedMemoryTest {

    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");
    private final ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults().withMaxTrackedClients(1_000),
            clock, Policy.defaults(), new FakeClassifier());
    private int sprayed;

    @Test
    void aSprayOfDistinctClientsStaysWithinCapacityAndIsCounted() {
        spray(200_000);
        ClientTableStats stats = engine.snapshot().clients();
        assertThat(stats.tracked()).isBetween(1L, 1_000L);
        assertThat(stats.capacity()).isEqualTo(1_000);
        assertThat(stats.tracked() + stats.evicted()).isEqualTo(200_000);
    }

    @Test
    void theHitStackStillWorksForAHotClientInTheMiddleOfASpray() {
        spray(50_000);
        clock.advance(Duration.ofSeconds(1));
        // a newcomer is as disposable as any sprayed address; once seen a few times it is kept
        for (int i = 0; i < 3; i++) {
            complete(decide(engine, "192.0.2.1", CURL));
        }
        for (int i = 3; i < 10; i++) {
            spray(300); // 300 new clients between two requests of the hot one
            complete(decide(engine, "192.0.2.1", CURL));
        }
        refused(decide(engine, "192.0.2.1", CURL), Reason.HIT_STACK);
        assertThat(engine.snapshot().topClients().get(0).ip()).isEqualTo("192.0.2.1");
    }

    @Test
    void idleClientsAreDroppedOnTheEnginesClock() {
        spray(500);
        long tracked = engine.snapshot().clients().tracked();
        assertThat(tracked).isPositive();
        clock.advance(Duration.ofSeconds(EngineConfig.defaults().idleSeconds()));
        assertThat(engine.snapshot().clients().tracked()).as("never dropped before the idle time").isEqualTo(tracked);
        clock.advance(Duration.ofSeconds(60));
        ClientTableStats stats = engine.snapshot().clients();
        assertThat(stats.tracked()).isZero();
        assertThat(stats.evicted()).isEqualTo(500);
    }

    private void spray(int count) {
        for (int n = 0; n < count; n++) {
            int i = sprayed++;
            complete(decide(engine, "10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255), CURL));
        }
    }

    private static void complete(Decision decision) {
        if (decision instanceof Decision.Admit admit) {
            admit.admission().complete(200, 1000);
        }
    }
}

package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

class LatencySignalTest {
    private static final GovernorPolicy POLICY = GovernorPolicy.DEFAULTS;
    private final LatencySignal signal = new LatencySignal();
    private final SplittableRandom random = new SplittableRandom(99);

    /** Feeds {@code answers} latencies; returns how many signals they gave. */
    private int feed(int answers, LongSupplier latency) {
        int signals = 0;
        for (int i = 0; i < answers; i++) {
            if (signal.add(latency.getAsLong(), POLICY)) {
                signals++;
            }
        }
        return signals;
    }

    @Test
    void noiseOfARealSiteIsAlmostNeverASignal() {
        // 100,000 answers are five and a half hours at 5 per second: a cut every few hours at most
        // (over 20 seeds: 0 to 2, 0.6 on average).
        assertThat(feed(100_000, () -> LatencyModel.heavyTailed(100).millis(random)))
                .as("log-normal with one answer in fifty caught in a 1-5 s pause").isLessThanOrEqualTo(2);
        signal.reset();
        assertThat(feed(100_000, () -> LatencyModel.uniform(20, 200).millis(random))).as("20-200 ms").isZero();
    }

    @Test
    void aFastSiteIsNeverCongestedBelowTheFloor() {
        feed(100, () -> LatencyModel.local().millis(random));
        assertThat(feed(10_000, () -> random.nextLong(10, 40))).as("1-3 ms becoming 10-40 ms").isZero();
        assertThat(signal.threshold(POLICY)).isGreaterThanOrEqualTo(POLICY.latencyFloorMillis());
    }

    @Test
    void oneSlowAnswerOrOneSlowSpellShorterThanAWindowIsNot() {
        feed(100, () -> 100);
        for (int i = 0; i < 1_000; i++) {
            assertThat(signal.add(i % 7 == 0 ? 10_000 : 100, POLICY)).as("answer %d", i).isFalse();
        }
        assertThat(feed(POLICY.latencyWindow(), () -> 3_000)).as("a whole window in a GC pause").isZero();
        assertThat(feed(100, () -> 100)).isZero();
    }

    @Test
    void aSustainedRiseIsASignalWithinThreeWindows() {
        feed(10 * POLICY.latencyWindow(), () -> LatencyModel.uniform(80, 120).millis(random));
        int answers = 0;
        while (!signal.add(LatencyModel.uniform(300, 400).millis(random), POLICY)) {
            answers++;
            assertThat(answers).as("answers at three times the latency before the signal")
                    .isLessThan(3 * POLICY.latencyWindow());
        }
    }

    @Test
    void aRiseWithinTheSitesNormalSpreadIsNot() {
        // Window medians of this site swing between about 100 and 400 ms.
        long[] phase = {0};
        LongSupplier swinging = () -> (phase[0]++ / POLICY.latencyWindow()) % 3 == 0
                ? random.nextLong(300, 450) : random.nextLong(80, 140);
        feed(40 * POLICY.latencyWindow(), swinging);
        assertThat(feed(200 * POLICY.latencyWindow(), swinging)).isZero();
    }

    @Test
    void aSiteThatBecameSlowerForGoodIsAcceptedAfterAFewSignals() {
        feed(10 * POLICY.latencyWindow(), () -> 100);
        assertThat(feed(100 * POLICY.latencyWindow(), () -> 400))
                .isEqualTo(LatencySignal.UNHEEDED_SIGNALS);
        assertThat(signal.baseline()).isEqualTo(400);
    }

    @Test
    void aStaleBaselineFollowsARecoveredSiteAtOnce() {
        feed(10 * POLICY.latencyWindow(), () -> 900);
        feed(LatencySignal.SUSTAINED_WINDOWS * POLICY.latencyWindow(), () -> 100);
        assertThat(signal.baseline()).isEqualTo(100);
    }
}

package io.sluice.engine.governor;

import java.util.SplittableRandom;

/** How long a simulated site takes to answer: real sites are noisy, and their tails are heavy. */
@FunctionalInterface
interface LatencyModel {

    long millis(SplittableRandom random);

    /** The clean site of a textbook: always the same. */
    static LatencyModel fixed(long millis) {
        return random -> millis;
    }

    /** Jittered evenly between {@code low} and {@code high} ms. */
    static LatencyModel uniform(long low, long high) {
        return random -> random.nextLong(low, high + 1);
    }

    /**
     * A real site: log-normal around {@code medianMillis} (a quarter of the answers take over twice
     * the median), and one answer in fifty caught in a pause (GC, a cold cache, a noisy neighbour)
     * of 1 to 5 s.
     */
    static LatencyModel heavyTailed(long medianMillis) {
        return random -> {
            if (random.nextDouble() < 0.02) {
                return random.nextLong(1_000, 5_001);
            }
            double normal = gaussian(random);
            return Math.max(1, Math.round(medianMillis * Math.exp(0.7 * normal)));
        };
    }

    /** A site on the local network: 1-3 ms, now and then 20-60 ms. */
    static LatencyModel local() {
        return random -> random.nextDouble() < 0.05 ? random.nextLong(20, 61) : random.nextLong(1, 4);
    }

    private static double gaussian(SplittableRandom random) {
        // Box-Muller: SplittableRandom has no nextGaussian on JDK 17.
        double u = 1 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}

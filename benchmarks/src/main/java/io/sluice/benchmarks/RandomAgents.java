package io.sluice.benchmarks;

import java.util.Random;

/** Generators of user agents that match no crawler-list entry, for the uncached path. */
final class RandomAgents {

    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    private RandomAgents() {
    }

    /**
     * A browser-shaped user agent of exactly {@code length} chars: "Mozilla/5.0 (" and random words,
     * numbers and punctuation, the shape a spray uses to look ordinary.
     */
    static String browserLike(Random random, int length) {
        StringBuilder s = new StringBuilder(length + 16).append("Mozilla/5.0 (");
        while (s.length() < length) {
            int word = 2 + random.nextInt(8);
            for (int i = 0; i < word; i++) {
                s.append(LETTERS.charAt(random.nextInt(LETTERS.length())));
            }
            s.append(" ;/.()".charAt(random.nextInt(6)));
        }
        s.setLength(length);
        return s.toString();
    }
}

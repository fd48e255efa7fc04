package io.sluice.engine.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The golden cases of the hit stack, hit-stack-cases.json beside this class (it says what they hold), as read by the
 * engine's tests. The server's tests read the same file with a reader of their own.
 */
record HitStackCases(List<String> about, long epochSecond, List<Case> cases) {

    /** One case: a stack, empty at first, and the steps made on it. */
    record Case(String name, String note, int window, int limit, List<Step> steps) {
        @Override
        public String toString() {
            return name; // the parameterized test's display name
        }
    }

    /**
     * A push of {@code weight} at {@code at} ms after the epoch second, over its window and limit (the step's own when
     * given, else the case's), and what it answers.
     */
    record Step(long at, int weight, Integer window, Integer limit, int hits, long untilBelow, long untilReset,
                Answer lua) {

        int windowIn(Case of) {
            return window != null ? window : of.window();
        }

        int limitIn(Case of) {
            return limit != null ? limit : of.limit();
        }

        /** The engine's answer. */
        Answer expected() {
            return new Answer(hits, untilBelow, untilReset);
        }
    }

    /** What a push answers: hits in the window, ms until fewer than the limit remain, ms until the oldest leaves. */
    record Answer(int hits, long untilBelow, long untilReset) {
    }

    static HitStackCases read() {
        try (InputStream in = HitStackCases.class.getResourceAsStream("hit-stack-cases.json")) {
            return new ObjectMapper().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                    .readValue(in, HitStackCases.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

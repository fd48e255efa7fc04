package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.TestRedis;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * hit-stacks.lua carries a window's total forward in the stack's header instead of summing the window on every push
 * (docs/architecture-cluster.md, "Keys"), and keeps its last second's hits in the header. Whatever the order of
 * seconds, gaps, weights, window changes, flushes of a window not known and Redis's clock going back, the total and
 * the oldest second with hits it answers are what summing every hit of the window gives: checked against that sum,
 * in a real Redis, on a clock the test moves (the script's {@code TIME} replaced by the test's second).
 */
@RealParts
class HitStacksScriptTest {
    private static final String KEY = "sluice:{192.0.2.1}:m:test";
    private static final String TIME = "call('TIME')";
    private static TestRedis redis;
    private static String script;

    @BeforeAll
    static void start() throws IOException {
        redis = TestRedis.start();
        String library = resource("locals.lua") + "\n" + resource("hit-stacks.lua");
        assertThat(library).as("the clock the test replaces").contains(TIME);
        script = LuaScript.evaluated(library.replace(TIME, "{ARGV[1], '0'}") + String.join("\n",
                "",
                "local function main(keys, args)",
                "  KEYS, ARGV = keys, args",
                "  readClock()",
                "  local window = tonumber(ARGV[3])",
                "  local weight = tonumber(ARGV[4])",
                "  if ARGV[2] == 'flush' then",
                "    addHitsKeepingWindow(openStack(KEYS[1]), weight)",
                "    return 'flushed'",
                "  end",
                "  local stack = openStack(KEYS[1])",
                "  local total, oldest = windowOf(stack, window)",
                "  if weight > 0 then",
                "    addHits(stack, weight, window, total, oldest)",
                "  end",
                "  return string.format('%d,%d', total, oldest)",
                "end"));
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void theWindowsTotalCarriedInTheHeaderIsTheSumOfItsHitsWhateverTheSecondsWindowsAndFlushes() throws IOException {
        Random random = new Random(29);
        for (int run = 0; run < 4; run++) {
            redis.command("DEL", KEY);
            TreeMap<Long, Long> hits = new TreeMap<>();
            long second = 1_764_000_000L + random.nextInt(1_000_000);
            int window = 15;
            for (int step = 0; step < 600; step++) {
                int roll = random.nextInt(100);
                second += roll < 60 ? 0 : roll < 85 ? 1 : roll < 93 ? 2 + random.nextInt(5) : roll < 98
                        ? random.nextInt(90) : -1 - random.nextInt(3); // Redis's clock back: a failover
                if (random.nextInt(40) == 0) {
                    window = List.of(1, 2, 15, 59, 60).get(random.nextInt(5));
                }
                int weight = random.nextInt(4);
                if (random.nextInt(10) == 0 && weight > 0) {
                    redis.command("EVAL", script, "1", KEY, Long.toString(second), "flush", "0",
                            Integer.toString(weight));
                } else {
                    String answer = redis.command("EVAL", script, "1", KEY, Long.toString(second), "push",
                            Integer.toString(window), Integer.toString(weight));
                    assertThat(answer).as("second %d, window %d, step %d of run %d", second, window, step, run)
                            .isEqualTo(expected(hits, second, window));
                }
                if (weight > 0) {
                    hits.merge(second, (long) weight, Long::sum);
                }
            }
        }
    }

    /** "total,oldest": the hits of the window's seconds summed, and the oldest of them with hits (0: none). */
    private static String expected(TreeMap<Long, Long> hits, long second, int window) {
        var inWindow = hits.subMap(second - window, false, second, true);
        long total = inWindow.values().stream().mapToLong(Long::longValue).sum();
        long oldest = inWindow.isEmpty() ? 0 : inWindow.firstKey();
        return total + "," + oldest;
    }
}

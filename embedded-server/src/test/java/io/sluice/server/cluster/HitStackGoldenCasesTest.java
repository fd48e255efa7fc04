package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.policy.Policy;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.TestRedis;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis's hit stacks (hit-stacks.lua's push, which client-admit.lua pushes every admission's hits with) against the
 * engine's golden cases: the table the engine's HitRing is held to (HitRingTest), read from the engine's test
 * resources, so a change to how hits are counted made on one side only fails here or there, naming the case. The
 * script runs in a real Redis (tier 2) on a clock the test sets (its {@code TIME} replaced by the step's instant).
 * The stack's length in seconds is checked against the engine's longest window without Redis (tier 1).
 */
class HitStackGoldenCasesTest {
    /** The golden cases, in the engine's test resources (this test runs in the server module's directory). */
    private static final Path CASES = Path.of("..", "throttle-engine", "src", "test", "resources", "io", "sluice",
            "engine", "internal", "hit-stack-cases.json");
    private static final String KEY = "sluice:{192.0.2.1}:m:golden";
    private static final String TIME = "call('TIME')";
    private static TestRedis redis;
    private static String script;

    /** One case of the table, named for the test's display. */
    record Case(String name, JsonNode node) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (JsonNode node : table().get("cases")) {
            cases.add(new Case(node.get("name").asText(), node));
        }
        return cases;
    }

    private static JsonNode table() throws IOException {
        Path file = Path.of(System.getProperty("basedir", "")).toAbsolutePath().resolve(CASES).normalize();
        assertThat(file).as("the engine's golden cases of the hit stack").isRegularFile();
        return new ObjectMapper().readTree(file.toFile());
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void theStacksKeepTheEnginesLongestWindow() throws IOException {
        Matcher keep = Pattern.compile("(?m)^local KEEP = (\\d+)$").matcher(resource("hit-stacks.lua"));
        assertThat(keep.find()).as("hit-stacks.lua's KEEP").isTrue();
        assertThat(Integer.parseInt(keep.group(1))).as("seconds a Redis hit stack keeps (hit-stacks.lua's KEEP)")
                .isEqualTo(Policy.HitStack.MAX_WINDOW_SECONDS);
    }

    @RealParts
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void redisAnswersEveryStepOfTheCase(Case golden) throws IOException {
        long epochMillis = table().get("epochSecond").asLong() * 1000;
        redis().command("DEL", KEY);
        JsonNode steps = golden.node().get("steps");
        for (int i = 0; i < steps.size(); i++) {
            JsonNode step = steps.get(i);
            long now = epochMillis + step.get("at").asLong();
            int window = (step.has("window") ? step : golden.node()).get("window").asInt();
            int limit = (step.has("limit") ? step : golden.node()).get("limit").asInt();
            JsonNode expected = step.has("lua") ? step.get("lua") : step;
            String answer = redis.command("EVAL", script, "1", KEY, Long.toString(Math.floorDiv(now, 1000)),
                    Long.toString(Math.floorMod(now, 1000) * 1000), Integer.toString(window), Integer.toString(limit),
                    step.get("weight").asText());
            assertThat(answer).as("case \"%s\", step %d (at %d ms, weight %d)%s: hits,untilBelow,untilReset",
                            golden.name(), i + 1, step.get("at").asLong(), step.get("weight").asInt(),
                            step.has("lua") ? ", Redis's own answer" : "")
                    .isEqualTo(expected.get("hits").asInt() + "," + expected.get("untilBelow").asLong() + ","
                            + expected.get("untilReset").asLong());
        }
    }

    /** The Redis under test, started at the first case: a tier-1 run starts none. */
    private static TestRedis redis() throws IOException {
        if (redis == null) {
            redis = TestRedis.start();
            String library = resource("locals.lua") + "\n" + resource("hit-stacks.lua");
            assertThat(library).as("the clock the test replaces").contains(TIME);
            script = LuaScript.evaluated(library.replace(TIME, "{ARGV[1], ARGV[2]}") + String.join("\n",
                    "",
                    "local function main(keys, args)",
                    "  KEYS, ARGV = keys, args",
                    "  readClock()",
                    "  local hits, below, reset = push(openStack(KEYS[1]), tonumber(ARGV[5]), tonumber(ARGV[3]),",
                    "      tonumber(ARGV[4]))",
                    "  return string.format('%d,%d,%d', hits, below, reset)",
                    "end"));
        }
        return redis;
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("missing " + name));
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}

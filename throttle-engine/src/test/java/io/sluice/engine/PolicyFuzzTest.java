package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.re2j.Pattern;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.RegexBudget;
import io.sluice.engine.internal.RegexShape;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.AllowType;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.policy.Route;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import net.jqwik.api.Provide;

/**
 * Fuzzes what an operator (or a careless script) can hand the engine as a policy (issue #27): whatever the JSON,
 * reading it fails with a Jackson error (the API's 400 naming the field) or gives a policy; whatever the policy,
 * the validator answers with field errors, in bounded time, never an exception; and a policy it accepts
 * compiles. Inputs are a rich valid policy with a few of its values replaced by hostile ones (huge numbers,
 * extreme instants, pathological patterns, nulls, wrong types, nesting), and arbitrary text.
 */
class PolicyFuzzTest {

    private static final ObjectMapper JSON = PolicyJson.mapper();
    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    /** Values chosen to hurt: overflow edges, instants at the ends of time, patterns that explode or nest. */
    private static final List<String> HOSTILE = List.of(
            "null", "true", "false", "0", "-1", "1.5", "1e400", "-1e400", "1e-400",
            "2147483647", "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
            "-9223372036854775809", "123456789012345678901234567890", "9007199254740992",
            "\"\"", "\" \"", "\"x\"", "[]", "{}", "[null]", "{\"x\":1}",
            "\"/((a{1000}){1000}){1000}/\"", "\"/(?:(?:.?){1000}){100}z/\"", "\"/(?:.?){999}/\"",
            "\"/" + "(".repeat(600) + "/\"", "\"" + "(".repeat(10_000) + "\"", "\"/[/\"", "\"/\\\\/\"",
            "\"((a{1000}){1000}){1000}\"", "\"/a/\"", "\"**.{css\"", "\"/{a,{b}}\"",
            "\"1969-12-31T23:59:59Z\"", "\"9999-12-31T23:59:59Z\"", "\"+1000000000-12-31T23:59:59.999999999Z\"",
            "\"-1000000000-01-01T00:00:00Z\"", "\"2026-11-22T10:00:00Z\"",
            "\"10.0.0.0/8\"", "\"::/0\"", "\"0.0.0.0/0\"", "\"1.2.3.4|curl\"", "\"|\"", "\"256.0.0.1\"",
            "\"agent\"", "\"ip\"", "\"client\"", "\"glob\"", "\"regex\"", "\"prefix\"", "\"address\"",
            "\"BOT\"", "\"CRAWLER\"", "\"BROWSER\"", "\"GET\"", "\"get\"", "\"image\"");

    // ---- the JSON reader and the validator, through mutated policies ----

    @Property(tries = 1500)
    void aMutatedPolicyIsReadAndValidatedWithoutAnythingButFieldErrors(
            @ForAll("mutations") List<Mutation> mutations) throws Exception {
        JsonNode tree = JSON.valueToTree(richPolicy());
        for (Mutation mutation : mutations) {
            tree = mutation.applyTo(tree);
        }
        readValidateCompile(JSON.writeValueAsString(tree));
    }

    @Property(tries = 1000)
    void anyTextIsReadWithoutAnythingButAJacksonError(@ForAll("texts") String text) throws Exception {
        readValidateCompile(text);
    }

    private static void readValidateCompile(String json) {
        Policy policy;
        try {
            policy = JSON.readValue(json, Policy.class);
        } catch (JsonProcessingException e) {
            return; // the admin API answers these with 400 and the field Jackson names
        }
        if (policy == null) {
            return; // "null": the admin API refuses an empty body before it gets here
        }
        long start = System.nanoTime();
        List<FieldError> errors = PolicyValidator.validate(policy);
        assertThat((System.nanoTime() - start) / 1_000_000).as("validation ms, generous for a loaded machine")
                .isLessThan(5_000);
        assertThat(errors).allSatisfy(error -> assertThat(error.field()).isNotNull());
        if (errors.isEmpty()) {
            new CompiledPolicy(policy, T0.toEpochMilli());
        }
    }

    /** A valid policy that uses every section, so that a mutation can reach every field. */
    static Policy richPolicy() {
        return Policy.defaults()
                .withBans(List.of(
                        new Ban("b1", BanType.AGENT, "/(curl|wget)\\/[0-9.]+/", "tools", "alice", T0,
                                T0.plusSeconds(3600)),
                        new Ban("b2", BanType.IP, "192.0.2.0/24", "", "alice", T0, null),
                        new Ban("b3", BanType.CLIENT, "2001:db8::1|curl/8", "", "bob", T0, null),
                        new Ban("b4", BanType.AGENT, "HTTrack", "", "bob", null, null)))
                .withAllow(List.of(new AllowEntry(AllowType.IP, "10.0.0.0/8", true, "office"),
                        new AllowEntry(AllowType.AGENT, "UptimeRobot", false, null)))
                .withTrustedProxies(List.of("127.0.0.1"))
                .withProgressiveDelay(Map.of(RequestClass.BOT, new Policy.ProgressiveDelay(5, 100, 2000)))
                .withRoutes(List.of(Route.DEFAULTS.get(0),
                        new Route(Route.Match.REGEX, "/api/v[0-9]+/.*", "action=history", List.of("GET"),
                                List.of(RequestClass.BOT), List.of("document"), 2, new Policy.HitStack(10, 5), "api"),
                        new Route(Route.Match.GLOB, "/wiki/*/history", null, List.of(), List.of(), List.of(), 3,
                                null, null),
                        new Route(Route.Match.PREFIX, "/static/", null, List.of(), List.of(), List.of(), 0, null,
                                null)))
                .withEscalation(List.of(new Escalation(Escalation.Scope.CLIENT, 5, 60, 600, 2.0, 86_400)));
    }

    /** Replace the n-th node (in document order) by a value, drop it, or add a field that does not exist. */
    record Mutation(int node, String value, int kind) {
        JsonNode applyTo(JsonNode root) throws JsonProcessingException {
            JsonNode replacement = JSON.readTree(value);
            List<JsonNode[]> places = new ArrayList<>(); // {parent, child} pairs, document order
            collect(root, places);
            if (places.isEmpty()) {
                return replacement;
            }
            JsonNode[] place = places.get(Math.floorMod(node, places.size()));
            JsonNode parent = place[0];
            if (parent instanceof ObjectNode object) {
                String name = fieldName(object, place[1]);
                switch (kind) {
                    case 0 -> object.remove(name);
                    case 1 -> object.set("unknown" + node, replacement);
                    default -> object.set(name, replacement);
                }
            } else if (parent instanceof ArrayNode array) {
                int index = indexOf(array, place[1]);
                switch (kind) {
                    case 0 -> array.remove(index);
                    case 1 -> array.insert(index, replacement);
                    default -> array.set(index, replacement);
                }
            }
            return root;
        }

        private static void collect(JsonNode node, List<JsonNode[]> places) {
            for (JsonNode child : node) {
                places.add(new JsonNode[] {node, child});
                collect(child, places);
            }
        }

        private static String fieldName(ObjectNode object, JsonNode child) {
            for (var entry : object.properties()) {
                if (entry.getValue() == child) {
                    return entry.getKey();
                }
            }
            throw new IllegalStateException("not a child");
        }

        private static int indexOf(ArrayNode array, JsonNode child) {
            for (int i = 0; i < array.size(); i++) {
                if (array.get(i) == child) {
                    return i;
                }
            }
            throw new IllegalStateException("not a child");
        }
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        Arbitrary<String> values = Arbitraries.oneOf(
                Arbitraries.of(HOSTILE),
                Arbitraries.longs().map(String::valueOf),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.doubles().map(String::valueOf),
                Arbitraries.strings().ofMaxLength(30).map(PolicyFuzzTest::quoted),
                regexSoup().map(s -> quoted("/" + s + "/")),
                Arbitraries.of(HOSTILE).list().ofMaxSize(4).map(list -> "[" + String.join(",", list) + "]"));
        Arbitrary<Mutation> mutation = Combinators.combine(
                Arbitraries.integers().between(0, 10_000), values, Arbitraries.integers().between(0, 5))
                .as(Mutation::new);
        return mutation.list().ofMinSize(1).ofMaxSize(5);
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(200),
                Arbitraries.strings().withChars("{}[]\":,0123456789eE.-+tfnaul\\ ").ofMaxLength(200),
                Arbitraries.integers().between(1, 5_000).map(n -> "[".repeat(n)),
                Arbitraries.integers().between(1, 5_000).map(n -> "{\"bans\":".repeat(n)),
                Arbitraries.integers().between(1, 100_000).map(n -> "{\"version\":" + "9".repeat(n) + "}"));
    }

    private static String quoted(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- the regular-expression budget itself ----

    /** Pieces of RE2 syntax, so that random sequences are often valid and often nested and repeated. */
    static Arbitrary<String> regexSoup() {
        return Arbitraries.of("a", "b", ".", "(", ")", "(?:", "(?i)", "(?P<n>", "|", "*", "+", "?", "*?",
                        "{2}", "{0,3}", "{1000}", "{2,}", "{,5}", "{", "}", "[a-z]", "[^/]", "[]a]", "[[:alpha:]]",
                        "\\d", "\\pL", "\\p{Greek}", "\\x{263a}", "\\Q(a{9}\\E", "\\", "^", "$", "\\b", "[", "]")
                .list().ofMaxSize(40).map(parts -> String.join("", parts));
    }

    @Property(tries = 3000)
    void theScanNeverUnderestimatesWhatRe2jCompiles(@ForAll("patterns") String pattern) {
        RegexShape shape = RegexShape.of(pattern, RegexBudget.MAX_DEPTH);
        if (shape.tooDeep(RegexBudget.MAX_DEPTH) || shape.instructions() > 20_000 || shape.foldLoop()) {
            return; // what the budget refuses without compiling: compiling it here would hang or exhaust the heap
        }
        Pattern compiled;
        try {
            compiled = Pattern.compile(pattern, Pattern.CASE_INSENSITIVE);
        } catch (RuntimeException invalid) {
            return;
        }
        assertThat(shape.instructions()).as(pattern).isGreaterThanOrEqualTo(compiled.programSize());
    }

    @Property(tries = 3000)
    void checkingAPatternEndsInAnAnswerNeverAnException(@ForAll("patterns") String pattern) {
        RegexBudget.Tally tally = RegexBudget.AGENT.tally();
        String problem = tally.check(pattern, CompiledPolicy.AGENT_FLAGS);
        if (problem == null) {
            assertThat(RegexBudget.AGENT.compile(pattern, CompiledPolicy.AGENT_FLAGS).programSize())
                    .isLessThanOrEqualTo(RegexBudget.AGENT.maxInstructions());
        }
    }

    /**
     * The letters {@link RegexShape} refuses under case folding are exactly those whose fold orbit never closes in
     * the RE2/J and JDK at hand: a new RE2/J or a JDK with other case data fails here, not on an operator's thread.
     * Reads RE2/J's package-private folding through reflection; the test only.
     */
    @Test
    void theLettersRe2jCannotFoldAreTheOnesRefused() throws Exception {
        Class<?> unicode = Class.forName("com.google.re2j.Unicode");
        Method simpleFold = unicode.getDeclaredMethod("simpleFold", int.class);
        simpleFold.setAccessible(true);
        Field min = unicode.getDeclaredField("MIN_FOLD");
        Field max = unicode.getDeclaredField("MAX_FOLD");
        min.setAccessible(true);
        max.setAccessible(true);
        List<Integer> neverClosing = new ArrayList<>();
        for (int letter = min.getInt(null); letter <= max.getInt(null); letter++) {
            int next = letter;
            boolean closes = false;
            for (int step = 0; step < 10 && !closes; step++) {
                next = (int) simpleFold.invoke(null, next);
                closes = next == letter;
            }
            if (!closes) {
                neverClosing.add(letter);
            }
        }
        List<Integer> refused = new ArrayList<>();
        for (int letter = RegexShape.FOLD_LOOP_FIRST; letter <= RegexShape.FOLD_LOOP_LAST; letter++) {
            refused.add(letter);
        }
        assertThat(neverClosing).isEqualTo(refused);
    }

    @Provide
    Arbitrary<String> patterns() {
        return Arbitraries.oneOf(regexSoup(), Arbitraries.strings().ofMaxLength(60));
    }
}

package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.RegexBudget;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue #27: no regular expression in a policy can hurt the server. Each pathological pattern is refused at
 * validation with its field named and what to simplify, in a bounded time, and nothing compiles it whole.
 */
class PatternBudgetTest {

    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    private static Ban agentBan(String id, String value) {
        return new Ban(id, BanType.AGENT, value, "why", "alice", T0, null);
    }

    private static Route regexRoute(String path) {
        return new Route(Route.Match.REGEX, path, null, List.of(), List.of(), List.of(), 1, null, null);
    }

    private static List<FieldError> validateQuickly(Policy policy) {
        long start = System.nanoTime();
        List<FieldError> errors = PolicyValidator.validate(policy);
        assertThat((System.nanoTime() - start) / 1_000_000).as("validation ms, generous for a loaded machine")
                .isLessThan(5_000);
        return errors;
    }

    @Test
    void nestedRepeatsWhoseProductExplodesAreRefusedWithoutCompilingThem() {
        // Before: OutOfMemoryError (RE2/J checks each count, not their product, and expands them all).
        List<FieldError> errors = validateQuickly(Policy.defaults()
                .withBans(List.of(agentBan("a", "/((a{1000}){1000}){1000}/"))));

        assertThat(errors).extracting(FieldError::field).containsExactly("bans[0].value");
        assertThat(errors.get(0).message()).contains("would compile to about", "at most 1,000",
                "do not nest repeats inside repeats");
    }

    @Test
    void aPatternThatValidatedButCostTooMuchPerMatchIsRefused() {
        // Before: valid, then program size x 512 steps for every new user agent (tens of milliseconds each).
        List<FieldError> errors = validateQuickly(Policy.defaults()
                .withBans(List.of(agentBan("a", "/(?:(?:.?){1000}){100}z/"), agentBan("b", "/(?:.?){600}z/"))));

        assertThat(errors).extracting(FieldError::field).containsExactly("bans[0].value", "bans[1].value");
        assertThat(errors.get(1).message()).startsWith("compiles to 1,203 instructions")
                .contains("the user agent, cut to 512 characters", "lower the {n,m} counts");
    }

    @Test
    void deepNestingIsRefusedBeforeAnythingRecursesOnIt() {
        String deep = "(".repeat(RegexBudget.MAX_DEPTH + 1) + "a" + ")".repeat(RegexBudget.MAX_DEPTH + 1);
        String tenThousand = "/" + "(".repeat(10_000) + "/";

        List<FieldError> errors = validateQuickly(Policy.defaults()
                .withBans(List.of(agentBan("a", "/" + deep + "/"), agentBan("b", tenThousand)))
                .withRoutes(List.of(regexRoute(deep))));

        assertThat(errors).extracting(FieldError::field)
                .containsExactly("bans[0].value", "bans[1].value", "routes[0].path");
        assertThat(errors.get(0).message()).startsWith("nests groups more than 32 deep");
        assertThat(errors.get(1).message()).isEqualTo("must be at most 1000 characters, was 10002");
    }

    @Test
    void patternsEachWithinBudgetAreRefusedWhenTogetherTheyAreNot() {
        List<Ban> bans = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            bans.add(agentBan("b" + i, "/(?:.?){400}z" + i + "/")); // about 800 instructions each
        }
        List<FieldError> errors = validateQuickly(Policy.defaults().withBans(bans));

        assertThat(errors).extracting(FieldError::field).containsExactly("bans");
        assertThat(errors.get(0).message()).contains("user-agent regular expressions together compile to",
                "at most 2,000");
        assertThat(PolicyValidator.validate(Policy.defaults().withBans(bans.subList(0, 2)))).isEmpty();
    }

    @Test
    void routePatternsHaveTheirOwnSmallerBudgetForTheyRunOnEveryRequest() {
        List<FieldError> errors = validateQuickly(Policy.defaults().withRoutes(List.of(
                regexRoute("/search/(?:[a-z]+/){100}"),
                new Route(Route.Match.GLOB, "/a/" + "x".repeat(300) + "/*", null, List.of(), List.of(), List.of(),
                        1, null, null))));

        assertThat(errors).extracting(FieldError::field).containsExactly("routes[0].path", "routes[1].path");
        assertThat(errors.get(0).message()).contains("a route path pattern may have at most 250", "the request path");
        assertThat(errors.get(1).message()).startsWith("this glob compiles to");
    }

    @Test
    void ordinaryPatternsStillPass() {
        Policy policy = Policy.defaults()
                .withBans(List.of(agentBan("a", "/(python-requests|curl|wget)\\/[0-9.]+/"),
                        agentBan("b", "/^Mozilla\\/5\\.0 \\(compatible; [a-z]+bot/"),
                        agentBan("c", "/Googlebot|bingbot|Baiduspider|YandexBot|DuckDuckBot|Slurp/")))
                .withRoutes(List.of(regexRoute("/api/v[0-9]+/(export|dump)/.*"),
                        new Route(Route.Match.GLOB, "/wiki/*/history", null, List.of(), List.of(), List.of(), 3,
                                null, null),
                        Route.DEFAULTS.get(0)));

        assertThat(PolicyValidator.validate(policy)).isEmpty();
        new CompiledPolicy(policy);
    }

    @Test
    void aPolicyThatSkippedValidationStillCannotCompileAnExplodingPattern() {
        Policy unchecked = Policy.defaults().withBans(List.of(agentBan("a", "/((a{1000}){1000}){1000}/")));

        assertThatThrownBy(() -> new CompiledPolicy(unchecked)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("would compile to about");
        assertThatThrownBy(() -> new CompiledPolicy(Policy.defaults().withRoutes(List.of(
                regexRoute("(?:(?:.?){1000}){100}z"))))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void lettersWhoseCaseFoldingNeverEndsInRe2jAreRefusedBeforeItHangsOnThem() {
        // Before: the validating thread spun forever in RE2/J's Parser.minFoldRune (found by PolicyFuzzTest).
        List<FieldError> errors = validateQuickly(Policy.defaults()
                .withBans(List.of(agentBan("a", "/bot\u1c80/"), agentBan("b", "/[\\x{1C00}-\\x{1CFF}]/"),
                        agentBan("c", "/\\x{1C84}/"), agentBan("d", "/\\p{Cyrillic}+bot/")))
                .withRoutes(List.of(regexRoute("(?i)/\u1c88"), regexRoute("/\u1c88"))));

        assertThat(errors).extracting(FieldError::field)
                .containsExactly("bans[0].value", "bans[1].value", "bans[2].value", "routes[0].path");
        assertThat(errors.get(0).message()).startsWith("names a letter from U+1C80 to U+1C88");
    }
}

package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.engine.PolicyValidator;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Fuzzes the admin API's body readers (issue #27): whatever the body of a ban, a policy, a pause, a token or a
 * crawl-governor call, reading it gives a value or a 400 naming a field, never another exception (a 500); a ban
 * request that reads is turned into a ban or a 400, and a ban that comes out is one the validator can judge.
 */
class WireReadersFuzzTest {
    private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

    /** Every record the admin API reads a body into. */
    private static final List<Class<?>> BODIES = List.of(BansResource.BanRequest.class, Policy.class,
            PauseResource.PauseRequest.class, TokensResource.TokenRequest.class, PermitResource.PermitRequest.class,
            FeedbackResource.FeedbackRequest.class, DomainActionResource.RateRequest.class,
            DomainActionResource.MinDelayRequest.class);

    @Property(tries = 2000)
    void everyBodyReadsAsAValueOrAFieldError(@ForAll("bodies") String body, @ForAll("types") Class<?> type) {
        Object value;
        try {
            value = ApiMessages.parseRequired(body, type);
        } catch (ApiError refused) {
            assertFieldError(refused);
            return;
        }
        assertThat(value).isNotNull();
    }

    @Property(tries = 3000)
    void aBanRequestBecomesABanOrAFieldError(@ForAll("banBodies") String body) {
        BansResource.BanRequest request;
        Ban ban;
        try {
            request = ApiMessages.parseRequired(body, BansResource.BanRequest.class);
            ban = request.toBan(NOW, "fuzz");
        } catch (ApiError refused) {
            assertFieldError(refused);
            return;
        }
        List<FieldError> errors = PolicyValidator.validate(Policy.defaults().withBans(List.of(ban)));
        assertThat(errors).as("what POST /api/v1/bans let through, the policy accepts").isEmpty();
    }

    private static void assertFieldError(ApiError refused) {
        assertThat(refused.status).isEqualTo(400);
        assertThat(refused.errors).isNotEmpty().allSatisfy(error -> {
            assertThat(error.field()).isNotBlank();
            assertThat(error.message()).isNotBlank();
        });
    }

    @Provide
    Arbitrary<Class<?>> types() {
        return Arbitraries.of(BODIES);
    }

    /** Field names of every body, so that generated objects often reach the records' fields. */
    private static final List<String> NAMES = List.of("type", "value", "reason", "durationSeconds", "class", "name",
            "role", "domain", "holdMillis", "status", "retryAfterSeconds", "latencyMillis", "requestsPerSecond",
            "millis", "version", "hitStack", "maxHits", "bans", "routes", "x");

    private static final List<String> SCALARS = List.of("null", "true", "false", "0", "-1", "1.5", "1e400",
            "-1e400", "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
            "92233720368547758070", "1e19", "\"\"", "\" \"", "\"agent\"", "\"ip\"", "\"client\"", "\"AGENT\"",
            "\"admin\"", "\"read\"", "\"worker\"", "\"BOT\"", "\"bot\"", "\"example.org\"", "\"192.0.2.1\"",
            "\"192.0.2.0/33\"", "\"1.2.3.4|curl\"", "\"/((a{1000}){1000}){1000}/\"", "\"/(?:(?:.?){1000}){100}z/\"",
            "\"/a\u1c80/\"", "\"/[/\"", "\"//\"", "\"" + "(".repeat(2_000) + "\"", "[]", "{}");

    @Provide
    Arbitrary<String> bodies() {
        return Arbitraries.oneOf(
                objects(),
                Arbitraries.of(SCALARS),
                Arbitraries.strings().ofMaxLength(100),
                Arbitraries.strings().withChars("{}[]\":,0123456789eE.-+tfnaul\\ ").ofMaxLength(100),
                Arbitraries.integers().between(1, 3_000).map(n -> "[".repeat(n) + "]".repeat(n)),
                Arbitraries.integers().between(1, 3_000).map(n -> "{\"x\":".repeat(n) + "1" + "}".repeat(n)));
    }

    @Provide
    Arbitrary<String> banBodies() {
        Arbitrary<String> durations = Arbitraries.oneOf(Arbitraries.longs().map(String::valueOf),
                Arbitraries.of(SCALARS));
        Arbitrary<String> values = Arbitraries.oneOf(Arbitraries.of(SCALARS),
                Arbitraries.strings().ofMaxLength(40).map(WireReadersFuzzTest::quoted),
                Arbitraries.strings().withChars("()[]{}.*+?|\\^$/aZ09,").ofMaxLength(40)
                        .map(text -> quoted("/" + text + "/")));
        Arbitrary<String> types = Arbitraries.oneOf(Arbitraries.of("\"ip\"", "\"agent\"", "\"client\"", "\"IP\""),
                Arbitraries.of(SCALARS));
        return net.jqwik.api.Combinators.combine(types, values, durations, Arbitraries.of(SCALARS))
                .as((type, value, duration, reason) -> "{\"type\":" + type + ",\"value\":" + value
                        + ",\"durationSeconds\":" + duration + ",\"reason\":" + reason + "}");
    }

    private Arbitrary<String> objects() {
        Arbitrary<String> member = net.jqwik.api.Combinators.combine(Arbitraries.of(NAMES), Arbitraries.of(SCALARS))
                .as((name, value) -> "\"" + name + "\":" + value);
        return member.list().ofMaxSize(6).map(members -> "{" + String.join(",", members) + "}");
    }

    private static String quoted(String text) {
        try {
            return PolicyJson.mapper().writeValueAsString(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

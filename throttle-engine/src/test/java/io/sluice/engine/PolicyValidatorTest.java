package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.AllowType;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.policy.Policy;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PolicyValidatorTest {

    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    private static Ban ban(String id, BanType type, String value) {
        return new Ban(id, type, value, "why", "alice", T0, null);
    }

    @Test
    void theDefaultsAreValid() {
        assertThat(PolicyValidator.validate(Policy.defaults())).isEmpty();
    }

    @Test
    void everyBadFieldIsReportedWithItsPath() {
        Policy policy = new Policy(1,
                new Policy.HitStack(61, 0),
                new Policy.Crawlers(-1, 4000, false),
                new Policy.Load(0, -1, 0),
                new Policy.PerClient(0),
                Map.of(RequestClass.BOT, new Policy.ProgressiveDelay(-1, 0, 0)),
                new Policy.Pause(false, Arrays.asList(RequestClass.BOT, null)),
                List.of(
                        ban("a", BanType.IP, "192.0.2.0/33"),
                        ban("a", BanType.AGENT, "/[unclosed/"),
                        ban("c", BanType.CLIENT, "no-bar-here"),
                        ban("d", BanType.CLIENT, "999.1.1.1|curl"),
                        new Ban(" ", null, "", "r", "a", T0, T0.minusSeconds(1))),
                List.of(new AllowEntry(AllowType.IP, "10.0.0.0/8x", false, "office"),
                        new AllowEntry(null, "x", false, null)),
                List.of("fe80::/200"),
                new Policy.Classification(Arrays.asList("seo", " ")),
                new Policy.Refusal(-5, "ftp://example.org/dump"),
                new GovernorPolicy(50, 2, 1, -1, 1.0, 1.05, 0, 10, 0, 0, 0, 0, 0, 0, 400_000, -1, 2, 0, 0.5),
                null, null, null, null);

        assertThat(PolicyValidator.validate(policy)).extracting(FieldError::field).containsExactly(
                "hitStack.windowSeconds", "hitStack.maxHits",
                "crawlers.perCrawlerSeconds", "crawlers.allCrawlersSeconds",
                "load.maxActive", "load.maxWaiting", "load.deferMillis",
                "perClient.maxConcurrent",
                "progressiveDelay.BOT.softHits", "progressiveDelay.BOT.delayMillisPerHit",
                "progressiveDelay.BOT.maxDelayMillis",
                "pause.classes[1]",
                "bans[0].value", "bans[1].id", "bans[1].value", "bans[2].value", "bans[3].value",
                "bans[4].id", "bans[4].type", "bans[4].expiresAt",
                "allow[0].value", "allow[1].type",
                "trustedProxies[0]",
                "classification.crawlerTags[1]",
                "refusal.retryAfterSeconds", "refusal.infoUrl",
                "governor.maxRate", "governor.initialRate", "governor.increasePerSecond",
                "governor.decreaseFactor", "governor.latencyInflation", "governor.backoffBaseMillis",
                "governor.backoffForgiveSeconds", "governor.breakerErrorPercent", "governor.breakerMinCalls",
                "governor.breakerOpenSeconds", "governor.breakerTrialRequests", "governor.giveUpAfterErrors",
                "governor.maxHoldMillis", "governor.latencyFloorMillis", "governor.latencyWindow",
                "governor.latencyBaselineWindows", "governor.slowStartDoublingSeconds");
    }

    @Test
    void messagesSayWhatIsWrongInTheOperatorsTerms() {
        Policy policy = Policy.defaults().withHitStack(new Policy.HitStack(15, 0))
                .withBans(List.of(ban("a", BanType.AGENT, "/(?<x/")));
        List<FieldError> errors = PolicyValidator.validate(policy);
        assertThat(errors.get(0)).isEqualTo(
                new FieldError("hitStack.maxHits", "must be between 1 and 1000000 hits, was 0"));
        assertThat(errors.get(1).message()).startsWith("not a valid regular expression");
    }

    @Test
    void goodBansAndAllowEntriesPass() {
        Policy policy = Policy.defaults()
                .withBans(List.of(ban("1", BanType.IP, "2001:db8::/32"), ban("2", BanType.IP, "192.0.2.1"),
                        ban("3", BanType.AGENT, "/bot\\d+/"), ban("4", BanType.AGENT, "HTTrack"),
                        ban("5", BanType.CLIENT, "2001:db8::1|curl/8.0")))
                .withAllow(List.of(new AllowEntry(AllowType.IP, "10.0.0.0/8", true, "office"),
                        new AllowEntry(AllowType.AGENT, "UptimeRobot", false, null)))
                .withTrustedProxies(List.of("127.0.0.1", "::1"))
                .withRefusal(new Policy.Refusal(60, "https://example.org/dumps"));
        assertThat(PolicyValidator.validate(policy)).isEmpty();
    }

    @Test
    void aMissingSectionIsRequired() {
        Policy policy = new Policy(1, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null);
        assertThat(PolicyValidator.validate(policy)).extracting(FieldError::field).containsExactly(
                "hitStack", "crawlers", "load", "perClient", "classification", "refusal");
        assertThat(policy.governor()).as("a policy written before the governor existed").isEqualTo(
                GovernorPolicy.DEFAULTS);
        assertThat(PolicyValidator.validate(null)).hasSize(1);
    }

    @Test
    void numbersAndTimesThatWouldOverflowAClockSumAreRefused() {
        Policy policy = Policy.defaults().withVersion(Long.MAX_VALUE).withBans(List.of(
                new Ban("a", BanType.IP, "192.0.2.1", "", "alice", Instant.MIN, Instant.MAX),
                new Ban("b", BanType.IP, "192.0.2.2", "", "alice", T0, Instant.parse("9999-12-31T23:59:59Z"))));

        assertThat(PolicyValidator.validate(policy)).extracting(FieldError::field)
                .containsExactly("version", "bans[0].createdAt", "bans[0].expiresAt");
        assertThat(PolicyValidator.validate(policy.withVersion(PolicyValidator.MAX_VERSION)).get(0).field())
                .isEqualTo("bans[0].createdAt");
    }

    @Test
    void thePolicysCrawlerRangesAreCheckedAndEachBadOneIsNamed() {
        Map<String, List<String>> ranges = new LinkedHashMap<>();
        ranges.put("Googlebot", Arrays.asList("127.0.0.2", "10.1.2.3/8", null));
        ranges.put("bingbot", null);
        ranges.put(" ", List.of("127.0.0.4"));
        List<FieldError> errors = PolicyValidator.validate(
                Policy.defaults().withCrawlers(new Policy.Crawlers(30, 2, true, ranges)));
        assertThat(errors).extracting(FieldError::field).containsExactly("crawlers.verifiedRanges.Googlebot[1]",
                "crawlers.verifiedRanges.Googlebot[2]", "crawlers.verifiedRanges.bingbot", "crawlers.verifiedRanges");
        assertThat(errors.get(0).message()).contains("10.0.0.0/8");
    }
}

package io.sluice.server.ranges;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.CrawlerVerification;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running server's refresh of the crawlers' ranges, one timer turn at a time on a clock the test moves: a good
 * copy is used and saved, a copy with a /0 or shrunk by more than half and a source that fails each keep the last good
 * copy and say so, the age of each source is in the snapshot, and a restart starts from the saved copy.
 */
class CrawlerRangesFollowerTest {

    private static final IpAddress PARTNER = IpAddress.parse("192.0.2.9");

    @TempDir
    Path dir;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T12:00:00Z"));
    private final InstantSource clock = now::get;
    private final ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults(),
            CrawlerListClassifier.bundled());

    @Test
    void aGoodCopyIsUsedAndAnyCopyThatFailsItsChecksKeepsTheLastGoodOne() throws Exception {
        Path state = Files.createDirectory(dir.resolve("state"));
        Path source = dir.resolve("ranges.json");
        Files.writeString(source, copy("\"192.0.2.0/24\", \"198.51.100.0/24\", \"203.0.113.0/24\", \"10.1.0.0/16\""));
        CrawlerRangesFollower follower = new CrawlerRangesFollower(engine, state,
                new CrawlerRangesOptions(new RangesLocation(source.toString()), Duration.ofHours(24)), clock);

        follower.tick();
        assertThat(engine.crawlerRanges().inRanges("PartnerBot", PARTNER)).isTrue();
        assertThat(engine.crawlerRanges().inRanges("Googlebot", IpAddress.parse("66.249.66.1"))).isTrue();
        assertThat(Files.readString(state.resolve(OperatorRanges.FILE))).contains("198.51.100.0/24");
        CrawlerVerification.RangesSource operator = operator();
        assertThat(operator.problem()).isNull();
        assertThat(operator.prefixes()).isEqualTo(4);
        assertThat(operator.asOf()).isEqualTo(Instant.parse("2026-11-30T00:00:00Z")); // the copy's own date
        assertThat(operator.ageSeconds()).isEqualTo(Duration.ofHours(36).toSeconds());
        assertThat(engine.snapshot().crawlerVerification().ranges().get(0).source()).isEqualTo("bundled");

        // a /0 from the source: refused, said so, the last good copy still in use
        Files.writeString(source, copy("\"0.0.0.0/0\""));
        now.set(now.get().plus(Duration.ofHours(24)));
        follower.tick();
        assertThat(operator().problem()).contains("0.0.0.0/0 is wider than /8", "the last good copy is kept");
        assertThat(engine.crawlerRanges().inRanges("PartnerBot", PARTNER)).isTrue();
        assertThat(engine.crawlerRanges().inRanges("PartnerBot", IpAddress.parse("8.8.8.8"))).isFalse();
        assertThat(operator().ageSeconds()).isEqualTo(Duration.ofHours(60).toSeconds()); // older and older

        // a failed read is tried again within the hour, not at every turn
        Files.delete(source);
        now.set(now.get().plus(Duration.ofMinutes(30)));
        follower.tick();
        assertThat(operator().problem()).contains("0.0.0.0/0"); // not read again yet
        now.set(now.get().plus(Duration.ofMinutes(31)));
        follower.tick();
        assertThat(operator().problem()).contains("could not be read", "the last good copy is kept");
        assertThat(engine.crawlerRanges().inRanges("PartnerBot", PARTNER)).isTrue();

        // a copy that shrinks by more than half: kept at the last good one
        Files.writeString(source, copy("\"192.0.2.0/24\""));
        now.set(now.get().plus(Duration.ofHours(1)));
        follower.tick();
        assertThat(operator().problem()).contains("shrunk by more than half", "PartnerBot 4 -> 1");
        assertThat(engine.crawlerRanges().inRanges("PartnerBot", IpAddress.parse("203.0.113.1"))).isTrue();

        // a good one again
        Files.writeString(source, copy("\"192.0.2.0/24\", \"198.51.100.0/24\", \"203.0.113.0/24\""));
        now.set(now.get().plus(Duration.ofHours(1)));
        follower.tick();
        assertThat(operator().problem()).isNull();
        assertThat(engine.crawlerRanges().inRanges("PartnerBot", IpAddress.parse("10.1.2.3"))).isFalse();

        // a restart without the source configured starts from the saved copy
        ThrottleEngine restarted = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults(),
                CrawlerListClassifier.bundled());
        new CrawlerRangesFollower(restarted, state, CrawlerRangesOptions.NONE, clock).tick();
        assertThat(restarted.crawlerRanges().inRanges("PartnerBot", IpAddress.parse("203.0.113.1"))).isTrue();
    }

    @Test
    void withoutASourceOrASavedCopyOnlyTheBundledRangesAreUsedAndShown() throws Exception {
        new CrawlerRangesFollower(engine, dir, CrawlerRangesOptions.NONE, clock).tick();
        assertThat(engine.snapshot().crawlerVerification().ranges())
                .extracting(CrawlerVerification.RangesSource::source).containsExactly("bundled");
        assertThat(engine.snapshot().crawlerVerification().ranges().get(0).ageSeconds()).isPositive();
    }

    private CrawlerVerification.RangesSource operator() {
        return engine.snapshot().crawlerVerification().ranges().stream().filter(s -> s.source().equals("operator"))
                .findFirst().orElseThrow();
    }

    private static String copy(String prefixes) {
        return "{\"crawlers\": [{\"operator\": \"A partner\", \"names\": [\"PartnerBot\"], \"prefixes\": [" + prefixes
                + "], \"sources\": [{\"url\": \"https://partner.example/bot.json\", \"format\": \"prefixes\", "
                + "\"fetched\": \"2026-11-30\"}]}]}";
    }
}

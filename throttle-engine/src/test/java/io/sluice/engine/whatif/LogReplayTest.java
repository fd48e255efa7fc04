package io.sluice.engine.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import io.sluice.engine.whatif.GeneratedLog.DecisionModel;
import io.sluice.engine.whatif.GeneratedLog.Dialect;
import io.sluice.engine.whatif.WhatIfReport.OutcomeRow;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Replays of logs the tests write, with counts worked out by hand from the rules. The traffic (four minutes):
 * <ul>
 *   <li>a copier, 4 requests a second for 60 s (240): at 10 hits in 15 s it gets its first 10 and then
 *       nothing (refused hits count too, so it never falls below the limit while it keeps hammering); at 8,
 *       its first 8;</li>
 *   <li>three browsers reading a page every 5 s for 2 minutes (24 each): 3 hits in any 15 s, never refused;</li>
 *   <li>a reader (whose user agent holds quotes, escaped differently by each dialect) opening 9 pages one
 *       second apart: 9 hits in 15 s, refused once at 8, never at 10;</li>
 *   <li>Googlebot and bingbot every 40 s, 20 s apart (6 each): within both crawler gaps.</li>
 * </ul>
 * Within any logged second there are at most 8 lines, spread 125 ms apart: more than the 100 ms each request is
 * taken to run, so no concurrency or load rule ever applies.
 */
class LogReplayTest {
    static final String COPIER = "python-requests/2.32.3";
    static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
    static final String QUOTED = "Mozilla/5.0 (X11; \"Quoted\\Reader\") Firefox/121.0";
    static final long START = Instant.parse("2026-03-01T23:59:00Z").toEpochMilli();

    @TempDir
    Path dir;

    private static GeneratedLog traffic() {
        GeneratedLog log = new GeneratedLog()
                .every(START, 250, 240, "203.0.113.7", COPIER, DecisionModel.admitFirst(10))
                .every(START + 200_000, 1_000, 9, "198.51.100.9", QUOTED, DecisionModel.ADMIT)
                .every(START, 40_000, 6, "66.249.66.1", "Googlebot/2.1", DecisionModel.ADMIT)
                .every(START + 20_000, 40_000, 6, "157.55.39.1", "bingbot/2.0", DecisionModel.ADMIT);
        for (int b = 1; b <= 3; b++) {
            log.every(START, 5_000, 24, "198.51.100." + b, FIREFOX, DecisionModel.ADMIT);
        }
        return log;
    }

    private static Policy maxHits(int hits) {
        return Policy.defaults().withHitStack(new Policy.HitStack(15, hits));
    }

    private static WhatIfReport replay(Policy candidate, Policy against, Path... logs) throws Exception {
        return new LogReplay(candidate, against, new TestClassifier(), LogReplay.Options.defaults())
                .run(List.of(logs), LogReplay.Progress.NONE);
    }

    /** What every dialect must give when the live side is the default policy (10 hits) or Sluice's own log. */
    private static void assertTheCandidateAtEight(WhatIfReport report) {
        assertThat(report.requests()).isEqualTo(333);
        assertThat(report.outcomes()).containsExactly(
                new OutcomeRow(RequestClass.BROWSER, "ADMIT", 81, 80),
                new OutcomeRow(RequestClass.BROWSER, "REFUSE:HIT_STACK", 0, 1),
                new OutcomeRow(RequestClass.CRAWLER, "ADMIT", 12, 12),
                new OutcomeRow(RequestClass.BOT, "ADMIT", 10, 8),
                new OutcomeRow(RequestClass.BOT, "REFUSE:HIT_STACK", 230, 232));
        assertThat(report.liveRefused()).isEqualTo(230);
        assertThat(report.candidateRefused()).isEqualTo(233);
        assertThat(report.clientsDiffering()).isEqualTo(2);
        assertThat(report.browsersDiffering()).isEqualTo(1);
        // browsers first
        assertThat(report.clients()).hasSize(2);
        WhatIfReport.ClientDifference reader = report.clients().get(0);
        assertThat(reader.ip()).isEqualTo("198.51.100.9");
        assertThat(reader.userAgent()).isEqualTo(QUOTED);
        assertThat(reader.requestClass()).isEqualTo(RequestClass.BROWSER);
        assertThat(reader.requests()).isEqualTo(9);
        assertThat(reader.differing()).isEqualTo(1);
        assertThat(reader.live()).containsExactly(Map.entry("ADMIT", 9L));
        assertThat(reader.candidate()).containsExactly(Map.entry("ADMIT", 8L), Map.entry("REFUSE:HIT_STACK", 1L));
        WhatIfReport.ClientDifference copier = report.clients().get(1);
        assertThat(copier.userAgent()).isEqualTo(COPIER);
        assertThat(copier.requests()).isEqualTo(240);
        assertThat(copier.differing()).isEqualTo(2);
        assertThat(report.from()).isEqualTo(Instant.ofEpochMilli(START));
        assertThat(report.to()).isEqualTo(Instant.ofEpochMilli(START + 220_000));
        assertThat(report.notes()).anySatisfy(n -> assertThat(n).contains("in flight 100 ms"));
    }

    @Test
    void sluicesOwnLogIsComparedWithTheDecisionsItRecords() throws Exception {
        Path log = traffic().write(dir.resolve("sluice.log"), Dialect.SLUICE, false, List.of());
        WhatIfReport report = replay(maxHits(8), null, log);
        assertTheCandidateAtEight(report);
        assertThat(report.baseline()).contains("decisions the log records");
        assertThat(report.skipped()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void everyDialectPlainOrGzipGivesTheSameCountsAgainstASecondPolicy(Dialect dialect) throws Exception {
        List<String> junk = List.of(
                "198.51.100.77 - - [01/Mar/2026:23:59:30 +0000] \"-\" 400 0 \"-\" \"-\"",
                "crawl-66-249-66-1.googlebot.com - - [01/Mar/2026:23:59:30 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"",
                "not a log line at all");
        Path plain = traffic().write(dir.resolve(dialect + ".log"), dialect, false, junk);
        Path gzip = traffic().write(dir.resolve(dialect + ".log.gz"), dialect, true, junk);

        WhatIfReport fromPlain = replay(maxHits(8), maxHits(10), plain);
        WhatIfReport fromGzip = replay(maxHits(8), maxHits(10), gzip);

        assertTheCandidateAtEight(fromPlain);
        assertTheCandidateAtEight(fromGzip);
        assertThat(fromPlain.skipped()).isEqualTo(3);
        assertThat(fromGzip).usingRecursiveComparison().ignoringFields("notes").isEqualTo(fromPlain);
        assertThat(fromPlain.notes()).anySatisfy(n -> assertThat(n).contains("3 of 336 lines were not requests"));
    }

    @Test
    void aLogWithoutDecisionsIsComparedWithEverythingServed() throws Exception {
        Path log = traffic().write(dir.resolve("nginx.log"), Dialect.NGINX, false, List.of());
        WhatIfReport report = replay(maxHits(8), null, log);
        assertThat(report.liveRefused()).isZero();
        assertThat(report.candidateRefused()).isEqualTo(233);
        assertThat(report.clients()).extracting(WhatIfReport.ClientDifference::differing).containsExactly(1L, 232L);
    }

    /**
     * A route that matches on a query parameter applies in a replay as it does live: every generated path is
     * {@code /page/N?ref=N%3}, and a route on {@code ref=0} limited to 2 hits in 15 s refuses the copier's
     * {@code ref=0} requests after its first two (78 of 80) and the reader's third one (6 s after its first).
     */
    @Test
    void routesMatchOnTheLoggedQuery() throws Exception {
        Path log = traffic().write(dir.resolve("query.log"), Dialect.NGINX, false, List.of());
        Route refZero = new Route(Route.Match.PREFIX, "/page/", "ref=0", List.of(), List.of(), List.of(), 1,
                new Policy.HitStack(15, 2), "replay test");
        Policy generous = maxHits(1_000).withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000, 1_000));

        WhatIfReport report = replay(generous.withRoutes(List.of(refZero)), generous, log);

        assertThat(report.liveRefused()).isZero();
        assertThat(report.candidateRefused()).isEqualTo(79);
        assertThat(report.clients()).extracting(WhatIfReport.ClientDifference::ip)
                .containsExactly("198.51.100.9", "203.0.113.7");
    }

    /**
     * The browser check's per-network concurrency limit counts in a replay as it does live: 30 browser claims of one
     * /24 in one logged second, each taken to run 2 s, all in flight at once. A candidate that lets the network have
     * 10 in flight asks the other 20 to prove a browser (the log has no Sec-Fetch headers: each line is a page);
     * the default's 64 serve them all. The site is never under pressure in either.
     */
    @Test
    void aNetworksConcurrencyLimitCountsInAReplay() throws Exception {
        GeneratedLog fleet = new GeneratedLog();
        for (int i = 1; i <= 30; i++) {
            fleet.every(START + i, 1_000, 1, "203.0.113." + i, FIREFOX, DecisionModel.ADMIT);
        }
        Path log = fleet.write(dir.resolve("fleet.log"), Dialect.NGINX, false, List.of());
        Policy against = neverUnderPressure(BrowserCheck.DEFAULTS.networks());
        Policy candidate = neverUnderPressure(BrowserCheck.DEFAULTS.networks().withMaxConcurrent(10, 40));

        WhatIfReport report = new LogReplay(candidate, against, new TestClassifier(),
                LogReplay.Options.defaults().withAssumedMillis(2_000)).run(List.of(log), LogReplay.Progress.NONE);

        assertThat(report.outcomes()).containsExactly(
                new OutcomeRow(RequestClass.BROWSER, "ADMIT", 30, 10),
                new OutcomeRow(RequestClass.BROWSER, "REFUSE:CHALLENGE", 0, 20));
        assertThat(report.browsersDiffering()).isEqualTo(20);
    }

    private static Policy neverUnderPressure(BrowserCheck.Networks networks) {
        BrowserCheck d = BrowserCheck.DEFAULTS;
        return Policy.defaults().withLoad(new Policy.Load(1_000, 10, 500)).withBrowserCheck(new BrowserCheck(
                d.mode(), d.difficulty(), d.passTtlSeconds(), d.noScript(), d.noScriptWaitSeconds(), 100_000,
                d.pressureHoldSeconds(), d.perPass(), networks, d.exemptPaths(), d.alwaysChallenge()));
    }

    @Test
    void logsAreReadInTheOrderGivenAsOneStream() throws Exception {
        GeneratedLog first = new GeneratedLog().every(START, 250, 20, "203.0.113.7", COPIER, DecisionModel.ADMIT);
        GeneratedLog second = new GeneratedLog().every(START + 5_000, 250, 20, "203.0.113.7", COPIER,
                DecisionModel.ADMIT);
        Path a = first.write(dir.resolve("access.log.1"), Dialect.APACHE, true, List.of());
        Path b = second.write(dir.resolve("access.log"), Dialect.APACHE, false, List.of());
        WhatIfReport report = replay(maxHits(8), maxHits(100), a, b);
        // one copier over both files: 40 hits within 10 s, only the first 8 served
        assertThat(report.requests()).isEqualTo(40);
        assertThat(report.candidateRefused()).isEqualTo(32);
    }

    @Test
    void progressIsReportedPerFile() throws Exception {
        Path log = traffic().write(dir.resolve("p.log"), Dialect.SLUICE, false, List.of());
        List<Long> seen = new ArrayList<>();
        new LogReplay(maxHits(8), null, new TestClassifier(), LogReplay.Options.defaults())
                .run(List.of(log), (file, lines, read, total) -> {
                    seen.add(lines);
                    assertThat(read).isEqualTo(total);
                });
        assertThat(seen).containsExactly(333L);
    }
}

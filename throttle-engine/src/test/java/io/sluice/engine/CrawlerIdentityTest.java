package io.sluice.engine;

import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.decide;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.CrawlerIdentity;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A crawler's name is a claim (docs/manual/classify.md, "Crawler verification"): with the default policy, only a
 * claim from the crawler's published addresses gets the crawler's spacing, and a copy of its user agent from
 * anywhere else is a bot keyed by its own address that takes nothing from the real one. Real user agents through
 * the shipped crawler list, real published addresses through the shipped ranges.
 */
class CrawlerIdentityTest {

    private static final String GOOGLEBOT =
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    private static final String BINGBOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    private static final String AHREFS = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
    private static final String YANDEX = "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)";
    /** In Google's published common-crawler ranges (66.249.66.0/27, 66.249.64.0/27). */
    private static final String REAL_GOOGLE = "66.249.66.1";
    private static final String OTHER_REAL_GOOGLE = "66.249.64.5";
    /** In Bing's published ranges (40.77.167.0/24). */
    private static final String REAL_BING = "40.77.167.1";
    private static final String ATTACKER = "203.0.113.66";

    private final ManualClock clock = ManualClock.at("2026-11-25T10:00:00Z");

    private ThrottleEngine engine(Policy policy) {
        return new ThrottleEngine(EngineConfig.defaults(), clock, policy, CrawlerListClassifier.bundled());
    }

    @Test
    void aFakeGooglebotEvery29SecondsDoesNotDelayTheRealOne() {
        ThrottleEngine engine = engine(Policy.defaults());
        for (int round = 0; round < 5; round++) {
            Decision.Admit fake = admitted(decide(engine, ATTACKER, GOOGLEBOT));
            assertThat(fake.client().requestClass()).isEqualTo(RequestClass.BOT);
            fake.admission().complete(200, 1_000);
            clock.advance(Duration.ofSeconds(1));
            // before verification was on by default, this was CRAWLER_SPACING with Retry-After 29
            Decision.Admit real = admitted(decide(engine, REAL_GOOGLE, GOOGLEBOT));
            assertThat(real.client().requestClass()).isEqualTo(RequestClass.CRAWLER);
            real.admission().complete(200, 1_000);
            clock.advance(Duration.ofSeconds(30)); // the real one's own pace: one request per 30 s
        }
    }

    @Test
    void aFakeAhrefsBotDoesNotBlockARealBingbotThroughTheAllCrawlersGap() {
        ThrottleEngine engine = engine(Policy.defaults());
        Decision.Admit fake = admitted(decide(engine, ATTACKER, AHREFS));
        assertThat(fake.client().requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(fake.client().crawlerName()).isEqualTo("AhrefsBot");
        fake.admission().complete(200, 1_000);
        clock.advance(Duration.ofMillis(500));
        // before: CRAWLERS_BUSY, "Another crawler was served less than 2 s ago"
        served(decide(engine, REAL_BING, BINGBOT));
    }

    @Test
    void theRealCrawlersStillKeepTheirSpacingAndTheGap() {
        ThrottleEngine engine = engine(Policy.defaults());
        served(decide(engine, REAL_GOOGLE, GOOGLEBOT));
        clock.advance(Duration.ofSeconds(1));
        // another of Google's addresses is the same crawler: one turn per 30 s, whatever the address
        Decision.Refuse spaced = refused(decide(engine, OTHER_REAL_GOOGLE, GOOGLEBOT), Reason.CRAWLER_SPACING);
        assertThat(spaced.retryAfterSeconds()).isEqualTo(29);
        // and a verified crawler served 1 s ago holds every other verified crawler for the 2 s gap
        refused(decide(engine, REAL_BING, BINGBOT), Reason.CRAWLERS_BUSY);
        clock.advance(Duration.ofSeconds(1));
        served(decide(engine, REAL_BING, BINGBOT));
    }

    @Test
    void anUnverifiedClaimantIsLimitedAsABotByItsAddress() {
        ThrottleEngine engine = engine(Policy.defaults().withHitStack(new Policy.HitStack(15, 3)));
        for (int i = 0; i < 3; i++) {
            served(decide(engine, ATTACKER, GOOGLEBOT));
        }
        // its own hit stack, as any bot's: the fourth request in the window is refused
        refused(decide(engine, ATTACKER, GOOGLEBOT), Reason.HIT_STACK);
        // another address copying the same user agent has its own allowance: nothing is shared by the claim
        served(decide(engine, "203.0.113.67", GOOGLEBOT));
        // and the real crawler was never touched
        served(decide(engine, REAL_GOOGLE, GOOGLEBOT));
    }

    @Test
    void whileReverseDnsIsPendingTheClaimantIsABot() {
        ManualExecutor lookups = new ManualExecutor();
        SearchEngineVerifier dns = new SearchEngineVerifier(new SearchEngineVerifier.Resolver() {
            @Override
            public List<String> reverse(IpAddress address) {
                return address.toString().equals("5.255.253.1") ? List.of("5-255-253-1.spider.yandex.com.")
                        : List.of("somewhere.example.");
            }

            @Override
            public List<IpAddress> forward(String hostName) {
                return List.of(IpAddress.parse("5.255.253.1"));
            }
        }, lookups, clock, Duration.ofHours(1), Duration.ofMinutes(5), 1_000);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults(),
                CrawlerListClassifier.bundled(), dns);
        // Yandex publishes host names only: the first request starts a lookup and is a bot meanwhile
        Decision.Admit first = admitted(decide(engine, "5.255.253.1", YANDEX));
        assertThat(first.client().requestClass()).isEqualTo(RequestClass.BOT);
        first.admission().complete(200, 1_000);
        // a fake whose lookup is pending takes no slot either
        served(decide(engine, ATTACKER, YANDEX));
        lookups.runAll();
        clock.advance(Duration.ofSeconds(3));
        Decision.Admit verified = admitted(decide(engine, "5.255.253.1", YANDEX));
        assertThat(verified.client().requestClass()).isEqualTo(RequestClass.CRAWLER);
        verified.admission().complete(200, 1_000);
        assertThat(admitted(decide(engine, ATTACKER, YANDEX)).client().requestClass()).isEqualTo(RequestClass.BOT);
    }

    @Test
    void twoThousandFakeYandexClaimsFromOneSlash64LeaveTheRealYandexACrawlerOnceDnsAnswers() {
        ManualExecutor lookups = new ManualExecutor(); // runs nothing until DNS answers
        SearchEngineVerifier dns = new SearchEngineVerifier(new SearchEngineVerifier.Resolver() {
            @Override
            public List<String> reverse(IpAddress address) {
                return address.toString().equals("127.0.0.7") ? List.of("127-0-0-7.spider.yandex.com.") : List.of();
            }

            @Override
            public List<IpAddress> forward(String hostName) {
                return hostName.equals("127-0-0-7.spider.yandex.com") ? List.of(IpAddress.parse("127.0.0.7"))
                        : List.of();
            }
        }, lookups, clock, Duration.ofDays(1), Duration.ofHours(1), 100_000);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults(),
                CrawlerListClassifier.bundled(), dns);
        for (int i = 0; i < 2_000; i++) {
            Decision fake = decide(engine, "2001:db8:bad:1::" + Integer.toHexString(i + 1), YANDEX);
            if (fake instanceof Decision.Admit admit) {
                assertThat(admit.client().requestClass()).isEqualTo(RequestClass.BOT);
                admit.admission().complete(200, 1_000);
            }
        }
        Decision.Admit meanwhile = admitted(decide(engine, "127.0.0.7", YANDEX));
        assertThat(meanwhile.client().requestClass()).isEqualTo(RequestClass.BOT); // not known yet
        meanwhile.admission().complete(200, 1_000);
        // the /64 held two lookups; the rest were deferred, and the snapshot says so
        assertThat(engine.snapshot().crawlerVerification().lookups().inFlight()).isEqualTo(3);
        assertThat(engine.snapshot().crawlerVerification().lookups().deferred()).isEqualTo(1_998);

        lookups.runAll(); // DNS answers
        clock.advance(Duration.ofSeconds(3));
        assertThat(admitted(decide(engine, "127.0.0.7", YANDEX)).client().requestClass())
                .isEqualTo(RequestClass.CRAWLER);
    }

    @Test
    void thePolicysOwnRangesVerifyAndTurningVerificationOffBelievesEveryClaim() {
        Policy ownRanges = Policy.defaults().withCrawlers(
                new Policy.Crawlers(30, 2, true, Map.of("Googlebot", List.of("127.0.0.2"))));
        ThrottleEngine engine = engine(ownRanges);
        assertThat(admitted(decide(engine, "127.0.0.2", GOOGLEBOT)).client().requestClass())
                .isEqualTo(RequestClass.CRAWLER);
        assertThat(admitted(decide(engine, "127.0.0.3", GOOGLEBOT)).client().requestClass())
                .isEqualTo(RequestClass.BOT);

        ThrottleEngine trusting = engine(Policy.defaults().withCrawlers(new Policy.Crawlers(30, 2, false)));
        assertThat(admitted(decide(trusting, ATTACKER, GOOGLEBOT)).client().requestClass())
                .isEqualTo(RequestClass.CRAWLER);
    }

    @Test
    void theSnapshotSaysVerifiedOrClaimedForCrawlerRows() {
        ThrottleEngine engine = engine(Policy.defaults());
        served(decide(engine, REAL_GOOGLE, GOOGLEBOT));
        served(decide(engine, ATTACKER, GOOGLEBOT));
        served(decide(engine, "192.0.2.1", "curl/8.5.0"));
        Map<String, ClientRow> rows = new HashMap<>();
        engine.snapshot().topClients().stream().filter(r -> !r.address()).forEach(r -> rows.put(r.ip(), r));
        assertThat(rows.get(REAL_GOOGLE).crawlerIdentity()).isEqualTo(CrawlerIdentity.VERIFIED);
        assertThat(rows.get(ATTACKER).crawlerIdentity()).isEqualTo(CrawlerIdentity.CLAIMED);
        assertThat(rows.get(ATTACKER).crawlerName()).isEqualTo("Googlebot");
        assertThat(rows.get("192.0.2.1").crawlerIdentity()).as("curl claims no crawler").isNull();
    }
}

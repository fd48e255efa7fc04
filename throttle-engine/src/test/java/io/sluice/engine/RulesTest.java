package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BINGBOT;
import static io.sluice.engine.EngineFixture.BROWSER;
import static io.sluice.engine.EngineFixture.CURL;
import static io.sluice.engine.EngineFixture.GOOGLEBOT;
import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.decide;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static io.sluice.engine.EngineFixture.waiting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.AllowType;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The engine's pipeline: the prelude (pause, bans, allow-list, client identity), rules 6-7, and the boundaries only an
 * engine's own clock can show (a millisecond before a window ends). Rules 3-5 as every store keeps them (the single
 * node's, the cluster's Redis, a node deciding alone) are in embedded-server's {@code ClientStoreSpecification}.
 */
class RulesTest {

    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");

    private ThrottleEngine engine(Policy policy) {
        return EngineFixture.engine(clock, policy);
    }

    private static Ban ban(String id, BanType type, String value, Instant expires) {
        return new Ban(id, type, value, "test", "alice", Instant.parse("2026-11-22T09:00:00Z"), expires);
    }

    @Nested
    class HitStack {

        @Test
        void hitsLeaveTheWindowAfterWindowSeconds() {
            ThrottleEngine engine = engine(Policy.defaults());
            for (int i = 0; i < 10; i++) {
                served(decide(engine, "192.0.2.1", CURL));
            }
            clock.advanceMillis(14_999);
            refused(decide(engine, "192.0.2.1", CURL), Reason.HIT_STACK);
            clock.advanceMillis(1);
            // the ten first hits are gone; the refused one at 14.999 s still counts
            served(decide(engine, "192.0.2.1", CURL));
        }
    }

    @Nested
    class CrawlerSpacing {

        @Test
        void aCrawlerIsSpacedByItsListEntryWhateverAddressOrUserAgentItComesWith() {
            ThrottleEngine engine = engine(Policy.defaults().withCrawlers(new Policy.Crawlers(30, 0, false)));
            served(decide(engine, "66.249.66.1", "Googlebot/2.1"));
            clock.advanceMillis(5_000);
            // the same crawler-list entry ("Googlebot") from another address and with another version string
            refused(decide(engine, "66.249.66.2", "Googlebot/2.2 (+http://www.google.com/bot.html)"),
                    Reason.CRAWLER_SPACING);
            served(decide(engine, "40.77.167.1", BINGBOT)); // another crawler has its own gap
        }

        @Test
        void aCrawlerRotatingUserAgentsDoesNotKeepTheAnyCrawlerGapToItself() {
            // "spiderbot/N" is one crawler-list entry whatever N: only its first request in 30 s is served,
            // so it cannot hold the 2 s any-crawler gap and keep a real search engine out (verified from its address)
            ThrottleEngine engine = engine(Policy.defaults().withHitStack(new Policy.HitStack(15, 1000))
                    .withCrawlers(new Policy.Crawlers(30, 2, true, Map.of("spiderbot", List.of("203.0.113.7")))));
            served(decide(engine, "203.0.113.7", "spiderbot/0"));
            for (int i = 1; i <= 40; i++) {
                clock.advanceMillis(50);
                refused(decide(engine, "203.0.113.7", "spiderbot/" + i), Reason.CRAWLER_SPACING);
            }
            clock.advanceMillis(2_000);
            served(decide(engine, "66.249.66.1", GOOGLEBOT));
        }
    }

    @Nested
    class LoadDeferral {

        private final Policy busy = Policy.defaults().withLoad(new Policy.Load(2, 1, 500));

        private List<Decision.Admit> fill(ThrottleEngine engine, int count) {
            List<Decision.Admit> admits = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                admits.add(admitted(decide(engine, "198.51.100." + i, CURL)));
            }
            return admits;
        }

        @Test
        void aBrowserIsServedWhateverTheLoadWhileTheBrowserCheckIsOff() {
            // with the check on, the same holds for a browser on a pass (BrowserCheckTest.UnderPressure)
            ThrottleEngine engine = engine(EngineFixture.withoutBrowserCheck(busy));
            fill(engine, 2);
            for (int i = 0; i < 5; i++) {
                admitted(decide(engine, "203.0.113." + i, BROWSER));
            }
            assertThat(engine.snapshot().load().inFlight()).isEqualTo(7);
        }

        @Test
        void aBotWaitsWhenTheUpstreamIsFullAndIsRefusedWhenTheWaitingRoomIsFull() {
            ThrottleEngine engine = engine(busy);
            fill(engine, 2);
            Decision.Wait wait = waiting(decide(engine, "192.0.2.1", CURL), Reason.LOAD);
            assertThat(wait.waitMillis()).isEqualTo(500);
            assertThat(engine.snapshot().load().waiting()).isEqualTo(1);
            refused(decide(engine, "192.0.2.2", CURL), Reason.LOAD);
        }

        @Test
        void resumeAdmitsWhenASlotFreedMeanwhile() {
            ThrottleEngine engine = engine(busy);
            List<Decision.Admit> upstream = fill(engine, 2);
            Decision.Wait wait = waiting(decide(engine, "192.0.2.1", CURL), Reason.LOAD);
            upstream.get(0).admission().complete(200, 1);
            clock.advanceMillis(500);
            admitted(wait.deferral().resume());
            assertThat(engine.snapshot().load()).extracting(l -> l.inFlight(), l -> l.waiting())
                    .containsExactly(2, 0);
        }

        @Test
        void resumeRefusesWhenTheUpstreamIsStillFull() {
            ThrottleEngine engine = engine(busy);
            fill(engine, 2);
            Decision.Wait wait = waiting(decide(engine, "192.0.2.1", GOOGLEBOT), Reason.LOAD);
            clock.advanceMillis(500);
            refused(wait.deferral().resume(), Reason.LOAD);
            assertThat(engine.snapshot().load().waiting()).isZero();
        }

        @Test
        void cancelFreesTheWaitingPlaceAndTheClientSlotOnce() {
            ThrottleEngine engine = engine(busy.withPerClient(new Policy.PerClient(1)));
            fill(engine, 2);
            Decision.Wait wait = waiting(decide(engine, "192.0.2.1", CURL), Reason.LOAD);
            wait.deferral().cancel();
            wait.deferral().cancel();
            assertThat(engine.snapshot().load().waiting()).isZero();
            // the client's concurrency slot was released: it can wait again
            waiting(decide(engine, "192.0.2.1", CURL), Reason.LOAD);
            assertThatThrownBy(() -> wait.deferral().resume()).isInstanceOf(IllegalStateException.class);
        }
    }

    @Nested
    class ProgressiveDelay {

        @Test
        void pastTheSoftThresholdRequestsWaitLongerTheFasterTheClientGoesUpToTheMaximum() {
            Policy policy = Policy.defaults().withProgressiveDelay(
                    Map.of(RequestClass.BOT, new Policy.ProgressiveDelay(3, 200, 500)));
            ThrottleEngine engine = engine(policy);
            for (int i = 0; i < 3; i++) {
                served(decide(engine, "192.0.2.1", CURL));
            }
            assertThat(waiting(decide(engine, "192.0.2.1", CURL), Reason.DELAYED).waitMillis()).isEqualTo(200);
            Decision.Wait second = waiting(decide(engine, "192.0.2.1", CURL), Reason.DELAYED);
            assertThat(second.waitMillis()).isEqualTo(400);
            assertThat(waiting(decide(engine, "192.0.2.1", CURL), Reason.DELAYED).waitMillis()).isEqualTo(500);
            // browsers have no entry: never delayed
            for (int i = 0; i < 6; i++) {
                served(decide(engine, "192.0.2.1", BROWSER));
            }
            served(second.deferral().resume());
        }
    }

    @Nested
    class PauseBansAndAllowList {

        @Test
        void aPausedServiceRefusesEveryoneWith503AndRetryAfter() {
            ThrottleEngine engine = engine(Policy.defaults().withPause(new Policy.Pause(true, List.of())));
            Decision.Refuse refusal = refused(decide(engine, "192.0.2.1", BROWSER), Reason.PAUSED);
            assertThat(refusal.status()).isEqualTo(503);
            assertThat(refusal.retryAfterSeconds()).isEqualTo(30);
        }

        @Test
        void pausingOneClassLeavesTheOthersServed() {
            ThrottleEngine engine = engine(Policy.defaults()
                    .withPause(new Policy.Pause(false, List.of(RequestClass.CRAWLER))));
            refused(decide(engine, "66.249.66.1", GOOGLEBOT), Reason.PAUSED);
            served(decide(engine, "192.0.2.1", BROWSER));
            served(decide(engine, "192.0.2.2", CURL));
        }

        @Test
        void pauseComesBeforeBans() {
            ThrottleEngine engine = engine(Policy.defaults().withPause(new Policy.Pause(true, List.of()))
                    .withBans(List.of(ban("b1", BanType.IP, "192.0.2.1", null))));
            refused(decide(engine, "192.0.2.1", CURL), Reason.PAUSED);
        }

        @Test
        void bansByIpCidrIpv6AgentRegexAndExactClient() {
            ThrottleEngine engine = engine(Policy.defaults().withBans(List.of(
                    ban("b1", BanType.IP, "192.0.2.7", null),
                    ban("b2", BanType.IP, "198.51.100.0/24", null),
                    ban("b3", BanType.IP, "2001:db8:bad::/48", null),
                    ban("b4", BanType.AGENT, "httrack", null),
                    ban("b5", BanType.AGENT, "/^python-requests\\/2\\.\\d+/", null),
                    ban("b6", BanType.CLIENT, "203.0.113.9|Wget/1.21", null))));
            Decision.Refuse byIp = refused(decide(engine, "192.0.2.7", BROWSER), Reason.BANNED);
            assertThat(byIp.status()).isEqualTo(403);
            assertThat(byIp.retryAfterSeconds()).isEqualTo(-1);
            refused(decide(engine, "198.51.100.200", BROWSER), Reason.BANNED);
            refused(decide(engine, "2001:db8:bad:1::5", BROWSER), Reason.BANNED);
            served(decide(engine, "2001:db8:bae::5", BROWSER));
            refused(decide(engine, "192.0.2.1", "Mozilla/4.5 (compatible; HTTrack 3.0x)"), Reason.BANNED);
            refused(decide(engine, "192.0.2.1", "python-requests/2.31.0"), Reason.BANNED);
            served(decide(engine, "192.0.2.1", "my-python-requests/2.31.0"));
            refused(decide(engine, "203.0.113.9", "Wget/1.21"), Reason.BANNED);
            served(decide(engine, "203.0.113.9", "Wget/1.22"));
            served(decide(engine, "203.0.113.8", "Wget/1.21"));
        }

        @Test
        void anExpiredBanNoLongerApplies() {
            ThrottleEngine engine = engine(Policy.defaults().withBans(List.of(
                    ban("b1", BanType.IP, "192.0.2.0/24", Instant.parse("2026-11-22T10:10:00Z")))));
            Decision.Refuse refusal = refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
            assertThat(refusal.retryAfterSeconds()).isEqualTo(600);
            clock.advance(Duration.ofMinutes(10));
            served(decide(engine, "192.0.2.1", CURL));
        }

        @Test
        void aWiderBanStillAppliesWhenANarrowerOneExpired() {
            ThrottleEngine engine = engine(Policy.defaults().withBans(List.of(
                    ban("narrow", BanType.IP, "192.0.2.1", Instant.parse("2026-11-22T10:00:01Z")),
                    ban("wide", BanType.IP, "192.0.2.0/24", null))));
            clock.advance(Duration.ofSeconds(5));
            refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
        }

        @Test
        void anAllowListedClientSkipsRulesThreeToSevenButNotBansOrPause() {
            Policy policy = Policy.defaults()
                    .withHitStack(new Policy.HitStack(15, 1))
                    .withLoad(new Policy.Load(1, 0, 500))
                    .withAllow(List.of(new AllowEntry(AllowType.IP, "10.0.0.0/8", false, "office")));
            ThrottleEngine engine = engine(policy);
            for (int i = 0; i < 20; i++) {
                Decision.Admit admit = admitted(decide(engine, "10.1.2.3", GOOGLEBOT));
                assertThat(admit.client().allowListed()).isTrue();
            }
            refused(decide(engine, "192.0.2.1", CURL), Reason.LOAD);
            EngineFixture.changePolicyUnaudited(engine, p -> p.withPause(new Policy.Pause(true, List.of())));
            refused(decide(engine, "10.1.2.3", CURL), Reason.PAUSED);
            EngineFixture.changePolicyUnaudited(engine, p -> p.withPause(Policy.Pause.NONE)
                    .withBans(List.of(ban("b", BanType.IP, "10.1.2.3", null))));
            refused(decide(engine, "10.1.2.3", CURL), Reason.BANNED);
        }

        @Test
        void anAllowEntryExemptFromPauseIsServedDuringAPause() {
            Policy policy = Policy.defaults().withPause(new Policy.Pause(true, List.of()))
                    .withAllow(List.of(new AllowEntry(AllowType.AGENT, "UptimeRobot", true, "monitor")));
            ThrottleEngine engine = engine(policy);
            served(decide(engine, "192.0.2.1", "Mozilla/5.0+(compatible; UptimeRobot/2.0)"));
            refused(decide(engine, "192.0.2.1", CURL), Reason.PAUSED);
        }
    }

    @Nested
    class RuleOrder {

        @Test
        void concurrencyIsJudgedBeforeLoad() {
            ThrottleEngine engine = engine(Policy.defaults().withPerClient(new Policy.PerClient(1))
                    .withLoad(new Policy.Load(1, 0, 500)));
            admitted(decide(engine, "192.0.2.1", CURL));
            refused(decide(engine, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
            refused(decide(engine, "192.0.2.2", CURL), Reason.LOAD);
        }
    }

    @Nested
    class ClientIdentity {

        @Test
        void aTrustedProxyReportsTheClientAndAnUntrustedPeerCannotChooseItsAddress() {
            ThrottleEngine engine = engine(Policy.defaults().withTrustedProxies(List.of("10.0.0.1"))
                    .withBans(List.of(ban("b", BanType.IP, "192.0.2.66", null))));
            Request viaProxy = Request.direct("192.0.2.66", CURL).via("10.0.0.1", "192.0.2.66");
            Decision.Refuse refusal = refused(engine.decide(viaProxy), Reason.BANNED);
            assertThat(refusal.client().ip()).isEqualTo("192.0.2.66");
            Request spoofed = Request.direct("203.0.113.5", CURL).via("203.0.113.5", "198.51.100.1");
            assertThat(admitted(engine.decide(spoofed)).client().ip()).isEqualTo("203.0.113.5");
        }
    }

    @Nested
    class SearchEngineVerification {

        private final Policy verifying = Policy.defaults().withCrawlers(new Policy.Crawlers(30, 2, true));

        private SearchEngineVerifier verifier() {
            SearchEngineVerifier.Resolver dns = new SearchEngineVerifier.Resolver() {
                @Override
                public List<String> reverse(IpAddress address) {
                    return address.toString().equals("66.249.66.1")
                            ? List.of("crawl-66-249-66-1.googlebot.com.") : List.of("evil.example.");
                }

                @Override
                public List<IpAddress> forward(String hostName) {
                    return List.of(IpAddress.parse("66.249.66.1"));
                }
            };
            return new SearchEngineVerifier(dns, Runnable::run, clock, Duration.ofHours(1), Duration.ofMinutes(5),
                    1_000);
        }

        @Test
        void aGooglebotFromGooglesAddressesIsACrawlerAndACopyCatIsABot() {
            ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, verifying,
                    new FakeClassifier(), verifier());
            assertThat(admitted(decide(engine, "66.249.66.1", GOOGLEBOT)).client().requestClass())
                    .isEqualTo(RequestClass.CRAWLER);
            Decision.Admit copyCat = admitted(decide(engine, "203.0.113.7", GOOGLEBOT));
            assertThat(copyCat.client().requestClass()).isEqualTo(RequestClass.BOT);
            assertThat(copyCat.client().crawlerName()).isEqualTo("Googlebot");
        }

        @Test
        void withoutAVerifierOnlyPublishedRangesVerify() {
            ThrottleEngine engine = engine(verifying);
            // Google publishes 66.249.66.0/27: no DNS needed
            assertThat(admitted(decide(engine, "66.249.66.1", GOOGLEBOT)).client().requestClass())
                    .isEqualTo(RequestClass.CRAWLER);
            // Ahrefs publishes its addresses too, and 192.0.2.1 is not one of them
            assertThat(admitted(decide(engine, "192.0.2.1", "AhrefsBot/7.0")).client().requestClass())
                    .isEqualTo(RequestClass.BOT);
        }
    }
}

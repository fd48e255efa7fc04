package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BROWSER;
import static io.sluice.engine.EngineFixture.CURL;
import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.decide;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.policy.Route;
import io.sluice.engine.telemetry.ClientRow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The rules that make the defaults fit a real site and keep clients from slipping past them (issue 13): route
 * matching, identity, escalation, and what the snapshot shows of an address. What the stores do with weights, route
 * limits and addresses is in embedded-server's {@code ClientStoreSpecification}.
 */
class SiteLimitsTest {

    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");

    private ThrottleEngine engine(Policy policy) {
        return EngineFixture.engine(clock, policy);
    }

    private static Request get(String ip, String agent, String path) {
        return Request.get(ip, agent, path);
    }

    private static Route route(Route.Match match, String path, int weight, Policy.HitStack limits) {
        return new Route(match, path, null, List.of(), List.of(), List.of(), weight, limits, null);
    }

    @Nested
    class WhatARequestWeighs {

        @Test
        void aBrowserOpeningPagesWithTwentyFourAssetsEachIsServedUntilItsTenthPage() {
            ThrottleEngine engine = engine(Policy.defaults());
            List<String> assets = new ArrayList<>(List.of("/site.css", "/app.js", "/app.js.map", "/favicon.ico",
                    "/fonts/body.woff2"));
            for (int i = 0; i < 19; i++) {
                assets.add("/img/photo-" + i + (i % 2 == 0 ? ".jpg" : ".png"));
            }
            for (int page = 1; page <= 10; page++) {
                served(engine.decide(get("192.0.2.1", BROWSER, "/articles/" + page)));
                for (String asset : assets) {
                    served(engine.decide(get("192.0.2.1", BROWSER, asset)));
                }
                clock.advanceMillis(1_000);
            }
            // pages count: the eleventh within 15 s is refused, as a copier's would be
            refused(engine.decide(get("192.0.2.1", BROWSER, "/articles/11")), Reason.HIT_STACK);
        }

        @Test
        void aCopierFetchingPagesIsRefusedAtItsEleventhPage() {
            ThrottleEngine engine = engine(Policy.defaults());
            for (int i = 0; i < 10; i++) {
                served(engine.decide(get("192.0.2.9", "HTTrack 3.0", "/page/" + i)));
            }
            refused(engine.decide(get("192.0.2.9", "HTTrack 3.0", "/page/10")), Reason.HIT_STACK);
        }

        @Test
        void secFetchDestOnlyNarrowsARouteAndNeverMakesAPageFree() {
            Route images = new Route(Route.Match.PREFIX, "/media/", null, List.of(), List.of(), List.of("image"), 0,
                    null, null);
            ThrottleEngine engine = engine(Policy.defaults().withRoutes(List.of(images)));
            Request page = new Request("192.0.2.1", CURL, null, "GET", "/articles/1", null, "image");
            for (int i = 0; i < 10; i++) {
                served(engine.decide(page));
            }
            refused(engine.decide(page), Reason.HIT_STACK); // claimed "image", but the path is a page
            Request image = new Request("192.0.2.2", CURL, null, "GET", "/media/a", null, "image");
            Request unclaimed = new Request("192.0.2.2", CURL, null, "GET", "/media/a", null, null);
            for (int i = 0; i < 20; i++) {
                served(engine.decide(image));
            }
            for (int i = 0; i < 10; i++) {
                served(engine.decide(unclaimed)); // without the header the route does not match: weight 1
            }
            refused(engine.decide(unclaimed), Reason.HIT_STACK);
        }

        @Test
        void aRouteCanNameAQueryParameterMethodsAndClasses() {
            Route history = new Route(Route.Match.PREFIX, "/w/index.php", "action=history", List.of("GET"),
                    List.of(RequestClass.CRAWLER), List.of(), 1, new Policy.HitStack(60, 1), "history for crawlers");
            ThrottleEngine engine = engine(Policy.defaults().withRoutes(List.of(history))
                    .withCrawlers(new Policy.Crawlers(0, 0, false)));
            Request crawlerHistory = new Request("66.249.66.1", "Googlebot/2.1", null, "GET", "/w/index.php",
                    "title=Main&action=history", null);
            served(engine.decide(crawlerHistory));
            refused(engine.decide(crawlerHistory), Reason.ROUTE_LIMIT);
            served(engine.decide(new Request("66.249.66.1", "Googlebot/2.1", null, "GET", "/w/index.php",
                    "title=Main", null)));
            Request browserHistory = new Request("192.0.2.1", BROWSER, null, "GET", "/w/index.php",
                    "action=history", null);
            served(engine.decide(browserHistory));
            served(engine.decide(browserHistory));
        }

        @Test
        void globsAndRegularExpressionsMatchTheWholePath() {
            ThrottleEngine engine = engine(Policy.defaults().withHitStack(new Policy.HitStack(15, 1)).withRoutes(
                    List.of(route(Route.Match.GLOB, "/docs/*.pdf", 0, null),
                    route(Route.Match.REGEX, "/api/v[0-9]+/ping", 0, null))));
            for (int i = 0; i < 5; i++) {
                served(engine.decide(get("192.0.2.1", CURL, "/docs/manual.pdf")));
                served(engine.decide(get("192.0.2.1", CURL, "/api/v2/ping")));
            }
            served(engine.decide(get("192.0.2.1", CURL, "/docs/a/deeper.pdf"))); // * stops at '/': weight 1
            refused(engine.decide(get("192.0.2.1", CURL, "/api/v2/ping/x")), Reason.HIT_STACK);
        }

        @Test
        void aRegularExpressionWithQuantifiersOrAlternativesMatchesPathsItsLiteralStartDoesNotBegin() {
            ThrottleEngine engine = engine(Policy.defaults().withHitStack(new Policy.HitStack(15, 1)).withRoutes(
                    List.of(route(Route.Match.REGEX, "/ab*c", 0, null), route(Route.Match.REGEX, "/x|/y", 0, null),
                            route(Route.Match.GLOB, "/f*.txt", 0, null))));
            for (String path : List.of("/ac", "/abbc", "/x", "/y", "/f.txt", "/foo.txt")) {
                served(engine.decide(get("192.0.2.1", CURL, path)));
                served(engine.decide(get("192.0.2.1", CURL, path)));
            }
        }

        @Test
        void routesAreEditedLiveAndValidated() {
            ThrottleEngine engine = engine(Policy.defaults().withRoutes(List.of()));
            for (int i = 0; i < 10; i++) {
                served(engine.decide(get("192.0.2.1", BROWSER, "/a.png")));
            }
            refused(engine.decide(get("192.0.2.1", BROWSER, "/a.png")), Reason.HIT_STACK);
            EngineFixture.changePolicyUnaudited(engine, p -> p.withRoutes(Route.DEFAULTS));
            served(engine.decide(get("192.0.2.2", BROWSER, "/a.png")));

            Policy bad = Policy.defaults().withRoutes(List.of(
                    route(Route.Match.PREFIX, "static/", -1, new Policy.HitStack(0, 0)),
                    route(Route.Match.REGEX, "/(a)\\1", 0, null),
                    route(Route.Match.GLOB, "/{a,{b}}", 0, null),
                    new Route(Route.Match.PREFIX, "/x", "a=1&b=2", List.of("get"), List.of(), List.of("Image"), 0,
                            null, null)));
            assertThat(PolicyValidator.validate(bad)).extracting(FieldError::field).containsExactly(
                    "routes[0].path", "routes[0].weight", "routes[0].limits.windowSeconds",
                    "routes[0].limits.maxHits", "routes[1].path", "routes[2].path", "routes[3].query",
                    "routes[3].methods[0]", "routes[3].secFetchDest[0]");
        }
    }

    @Nested
    class AddressAggregate {

        @Test
        void rotatingUserAgentsFromOneAddressAreRefusedByTheAddress() {
            ThrottleEngine engine = engine(Policy.defaults());
            int served = 0;
            for (int i = 0; i < 60; i++) {
                Decision decision = decide(engine, "198.51.100.7", "Mozilla/5.0 (X11; Linux) Firefox/" + (100 + i));
                if (decision instanceof Decision.Admit admit) {
                    served++;
                    admit.admission().complete(200, 1000);
                } else {
                    refused(decision, Reason.ADDRESS_HIT_STACK);
                }
            }
            assertThat(served).isEqualTo(50); // perAddress.maxHits
            ClientRow address = engine.snapshot().topClients().get(0);
            assertThat(address.address()).isTrue();
            assertThat(address.ip()).isEqualTo("198.51.100.7");
            assertThat(address.hitsInWindow()).isEqualTo(60);
        }

        @Test
        void rotatingIpv6AddressesWithinOneSlash64AreOneAddress() {
            ThrottleEngine engine = engine(Policy.defaults());
            for (int i = 0; i < 50; i++) {
                served(decide(engine, "2001:db8:1:2::" + Integer.toHexString(i + 1), CURL + "." + i));
            }
            refused(decide(engine, "2001:db8:1:2:ffff::1", CURL), Reason.ADDRESS_HIT_STACK);
            served(decide(engine, "2001:db8:1:3::1", CURL)); // the next /64 is someone else
            ClientRow top = engine.snapshot().topClients().get(0);
            assertThat(top.ip()).isEqualTo("2001:db8:1:2::/64");
            assertThat(top.address()).isTrue();
        }

        @Test
        void anOfficeBehindOneNatIsNotRefusedForOrdinaryBrowsing() {
            ThrottleEngine engine = engine(Policy.defaults());
            // 20 people, each opening a page with 24 assets every 10 s, for a minute
            for (int round = 0; round < 6; round++) {
                for (int person = 0; person < 20; person++) {
                    String agent = BROWSER + " person-" + person;
                    if (person % 10 == 0) {
                        served(engine.decide(get("203.0.113.1", agent, "/articles/" + round)));
                    }
                    for (int a = 0; a < 24; a++) {
                        served(engine.decide(get("203.0.113.1", agent, "/img/" + a + ".png")));
                    }
                }
                clock.advance(Duration.ofSeconds(10));
            }
        }
    }

    @Nested
    class Identity {

        @Test
        void userAgentsAreCutTo512CharactersBeforeTheyKeyAnything() {
            ThrottleEngine engine = engine(Policy.defaults());
            String prefix = "x".repeat(UserAgents.MAX_LENGTH);
            for (int i = 0; i < 10; i++) {
                Decision decision = decide(engine, "192.0.2.1", prefix + "-tail-" + i + "y".repeat(8_000));
                assertThat(admitted(decision).client().userAgent()).hasSize(UserAgents.MAX_LENGTH);
                admitted(decision).admission().complete(200, 1000);
            }
            // ten different 8 KiB user agents that agree on their first 512 characters are one client
            refused(decide(engine, "192.0.2.1", prefix + "-another"), Reason.HIT_STACK);
            assertThat(engine.snapshot().topClients()).allSatisfy(
                    row -> assertThat(row.userAgent().length()).isLessThanOrEqualTo(UserAgents.MAX_LENGTH));
        }

        @Test
        void theForwardingHeaderIsTheOneThePolicyNames() {
            ThrottleEngine engine = engine(Policy.defaults().withTrustedProxies(List.of("127.0.0.1"))
                    .withForwardedHeader("Forwarded")
                    .withBans(List.of(new Ban("b", BanType.IP, "203.0.113.9", "r", "alice",
                            Instant.parse("2026-11-22T09:00:00Z"), null))));
            refused(engine.decide(Request.direct("x", CURL).via("127.0.0.1", "for=203.0.113.9")), Reason.BANNED);
            assertThat(admitted(engine.decide(Request.direct("x", CURL).via("127.0.0.1", "for=198.51.100.1")))
                    .client().ip()).isEqualTo("198.51.100.1");
            assertThat(engine.forwardedHeader()).isEqualTo("Forwarded");
            assertThat(PolicyValidator.validate(Policy.defaults().withForwardedHeader("X Forwarded")))
                    .extracting(FieldError::field).containsExactly("forwardedHeader");
        }

        @Test
        void anUnverifiedClaimantCannotTakeTheSearchEnginesSlot() {
            SearchEngineVerifier.Resolver dns = new SearchEngineVerifier.Resolver() {
                @Override
                public List<String> reverse(IpAddress address) {
                    return address.toString().equals("66.249.66.1") ? List.of("crawl-66-249-66-1.googlebot.com.")
                            : List.of("copier.example.");
                }

                @Override
                public List<IpAddress> forward(String hostName) {
                    return hostName.endsWith("googlebot.com") ? List.of(IpAddress.parse("66.249.66.1")) : List.of();
                }
            };
            SearchEngineVerifier verifier = new SearchEngineVerifier(dns, Runnable::run, clock, Duration.ofHours(1),
                    Duration.ofMinutes(5), 1_000);
            ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults()
                    .withCrawlers(new Policy.Crawlers(30, 2, true)), new FakeClassifier(), verifier);
            Decision fake = decide(engine, "203.0.113.66", "Googlebot/2.1");
            assertThat(admitted(fake).client().requestClass()).isEqualTo(RequestClass.BOT);
            served(fake);
            Decision real = decide(engine, "66.249.66.1", "Googlebot/2.1");
            assertThat(admitted(real).client().requestClass()).isEqualTo(RequestClass.CRAWLER);
        }
    }

    @Nested
    class RegularExpressionBans {

        @Test
        void aBacktrackingPatternAgainstALongUserAgentIsMatchedInLinearTime() {
            // (a+)+$ against "aaaa...!" takes exponential time in a backtracking engine
            Policy policy = Policy.defaults().withBans(List.of(new Ban("r", BanType.AGENT, "/(a+)+$/", "evil", "bob",
                    Instant.parse("2026-11-22T09:00:00Z"), null)));
            ThrottleEngine engine = engine(policy);
            String agent = "a".repeat(500) + "!" + "b".repeat(8_000); // cut to 500 a's, "!" and 11 b's
            long started = System.nanoTime();
            Decision decision = decide(engine, "192.0.2.1", agent);
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertThat(decision).isInstanceOf(Decision.Admit.class);
            assertThat(millis).as("a backtracking engine would not finish in our lifetime").isLessThan(5_000);
            refused(decide(engine, "192.0.2.2", "a".repeat(40)), Reason.BANNED);
        }

        @Test
        void constructsThatNeedBacktrackingAreRefusedAtValidation() {
            Policy policy = Policy.defaults().withBans(List.of(
                    new Ban("r1", BanType.AGENT, "/(bot)\\1/", null, "bob", null, null),
                    new Ban("r2", BanType.AGENT, "/(?=bot)/", null, "bob", null, null)));
            assertThat(PolicyValidator.validate(policy)).extracting(FieldError::field)
                    .containsExactly("bans[0].value", "bans[1].value");
            assertThat(PolicyValidator.validate(policy).get(0).message()).contains("RE2");
        }
    }

    @Nested
    class Escalating {

        private final Escalation fiveInAMinute = new Escalation(Escalation.Scope.CLIENT, 5, 60, 600, 2.0, 1_500);
        private final List<Ban> proposed = new CopyOnWriteArrayList<>();

        /** An engine whose automatic bans go to {@link #proposed} (a writer that takes them and writes nothing). */
        private ThrottleEngine escalating(Escalation rule) {
            ThrottleEngine engine = engine(Policy.defaults().withHitStack(new Policy.HitStack(15, 1))
                    .withEscalation(List.of(rule)));
            engine.proposeAutomaticBansTo(proposed::add);
            return engine;
        }

        /** What the server's policy writer does with a proposal: a version holding the ban. */
        private void install(ThrottleEngine engine, Ban ban) {
            EngineFixture.changePolicyUnaudited(engine, p -> {
                List<Ban> bans = new ArrayList<>(p.bans());
                bans.add(ban);
                return p.withBans(bans);
            });
        }

        @Test
        void aClientRefusedFiveTimesInAMinuteIsBannedAtOnceAndTheBanIsProposedToTheWriter() {
            ThrottleEngine engine = escalating(fiveInAMinute);
            served(decide(engine, "192.0.2.1", CURL));
            for (int i = 0; i < 5; i++) {
                refused(decide(engine, "192.0.2.1", CURL), Reason.HIT_STACK);
                clock.advanceMillis(1_000);
            }
            Decision.Refuse banned = refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
            assertThat(banned.retryAfterSeconds()).isEqualTo(599); // banned at the fifth refusal, 1 s ago
            assertThat(banned.detail()).isEqualTo("This client is banned.").doesNotContain("escalation");
            assertThat(engine.policy().bans()).as("the writer installs it, not the request thread").isEmpty();
            Ban ban = proposed.get(0);
            assertThat(ban.author()).isEqualTo("sluice");
            assertThat(ban.type()).isEqualTo(BanType.CLIENT);
            assertThat(ban.value()).isEqualTo("192.0.2.1|" + CURL);
            assertThat(ban.reason()).contains("5 refusals within 60 s");
            assertThat(ban.expiresAt()).isEqualTo(ban.createdAt().plusSeconds(600));
            assertThat(proposed).containsExactly(ban);
            assertThat(engine.pendingAutomaticBans()).containsExactly(ban);
            assertThat(engine.snapshot().bans()).containsExactly(ban);
            served(decide(engine, "192.0.2.2", CURL)); // nobody else

            install(engine, ban);
            assertThat(engine.pendingAutomaticBans()).as("the policy holds it now").isEmpty();
            refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
        }

        @Test
        void refusalsSpreadOverMoreThanTheWindowAreNoOffence() {
            ThrottleEngine engine = escalating(fiveInAMinute);
            for (int i = 0; i < 20; i++) {
                served(decide(engine, "192.0.2.1", CURL));
                refused(decide(engine, "192.0.2.1", CURL), Reason.HIT_STACK);
                clock.advance(Duration.ofSeconds(16));
            }
            assertThat(proposed).isEmpty();
        }

        @Test
        void repeatOffendersAreBannedLongerUpToTheCapAndExpiredBansAreForTheWriterToRemove() {
            ThrottleEngine engine = escalating(fiveInAMinute);
            List<Long> lengths = new ArrayList<>();
            for (int offence = 0; offence < 3; offence++) {
                for (int i = 0; i < 6; i++) {
                    decide(engine, "192.0.2.1", CURL);
                }
                Ban ban = proposed.get(proposed.size() - 1);
                install(engine, ban);
                lengths.add(Duration.between(ban.createdAt(), ban.expiresAt()).toSeconds());
                clock.advance(Duration.between(ban.createdAt(), ban.expiresAt()).plusSeconds(16));
                served(decide(engine, "192.0.2.1", CURL)); // the ban expired: no longer matches
                assertThat(engine.expiredAutomaticBans()).containsExactly(ban);
                EngineFixture.changePolicyUnaudited(engine, p -> p.withBans(List.of()));
                clock.advance(Duration.ofSeconds(16));
            }
            assertThat(lengths).containsExactly(600L, 1_200L, 1_500L);
        }

        @Test
        void aRepeatOffenderWhoseExpiredBanIsStillInThePolicyIsBannedAgainUntilTheWriterInstallsIt() {
            ThrottleEngine engine = escalating(fiveInAMinute);
            for (int i = 0; i < 6; i++) {
                decide(engine, "192.0.2.1", CURL);
            }
            Ban first = proposed.get(0);
            install(engine, first);
            clock.advance(Duration.ofSeconds(616)); // expired, not removed yet
            for (int i = 0; i < 6; i++) {
                decide(engine, "192.0.2.1", CURL);
            }
            assertThat(proposed).hasSize(2);
            EngineFixture.changePolicyUnaudited(engine,
                    p -> p.withPause(new Policy.Pause(false, List.of(RequestClass.CRAWLER))));
            assertThat(engine.pendingAutomaticBans()).as("the expired ban holds nothing").containsExactly(
                    proposed.get(1));
            refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
        }

        @Test
        void aBanIsJudgedOnTheBanClockSoTheNodesOfAClusterEndItTogether() {
            ThrottleEngine engine = escalating(fiveInAMinute);
            engine.judgeBanExpiryWithOffset(-30_000); // Redis's clock is 30 s behind this node's
            for (int i = 0; i < 6; i++) {
                decide(engine, "192.0.2.1", CURL);
            }
            Ban ban = proposed.get(0);
            assertThat(ban.createdAt()).isEqualTo(clock.instant().minusSeconds(30));
            install(engine, ban);
            clock.advance(Duration.ofSeconds(580)); // past the expiry on this node's clock, not on Redis's
            refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
            assertThat(engine.expiredAutomaticBans()).isEmpty();
            clock.advance(Duration.ofSeconds(21));
            served(decide(engine, "192.0.2.1", CURL));
            assertThat(engine.expiredAutomaticBans()).containsExactly(ban);
        }

        @Test
        void aFullWriterLeavesTheBanInForceInMemoryAndCountsIt() {
            ThrottleEngine engine = engine(Policy.defaults().withHitStack(new Policy.HitStack(15, 1))
                    .withEscalation(List.of(fiveInAMinute)));
            engine.proposeAutomaticBansTo(ban -> false);
            for (int i = 0; i < 6; i++) {
                decide(engine, "192.0.2.1", CURL);
            }
            refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
            assertThat(engine.automaticBansUnwritten()).isEqualTo(1);
        }

        @Test
        void anAddressRuleBansTheAddressPrefix() {
            ThrottleEngine engine = escalating(new Escalation(Escalation.Scope.ADDRESS, 3, 60, 60, 1.0, 60));
            for (int i = 0; i < 8; i++) { // two clients of one /64, each refused after its first request
                decide(engine, "2001:db8:7:7::" + (i % 2 + 1), CURL);
            }
            Ban ban = proposed.get(0);
            assertThat(ban.type()).isEqualTo(BanType.IP);
            assertThat(ban.value()).isEqualTo("2001:db8:7:7::/64");
            refused(decide(engine, "2001:db8:7:7::99", BROWSER), Reason.BANNED);
            served(decide(engine, "2001:db8:7:8::99", BROWSER));
        }

        @Test
        void refusalsThatAreNotTheClientsDoingDoNotCount() {
            ThrottleEngine engine = escalating(new Escalation(Escalation.Scope.CLIENT, 2, 60, 60, 1.0, 60));
            EngineFixture.changePolicyUnaudited(engine, p -> p.withPause(new Policy.Pause(true, List.of())));
            for (int i = 0; i < 10; i++) {
                refused(decide(engine, "192.0.2.1", CURL), Reason.PAUSED);
            }
            assertThat(proposed).isEmpty();
        }

        @Test
        void theRefusalPageShowsWhatTheOperatorPublishedNeverTheReason() {
            ThrottleEngine engine = engine(Policy.defaults()
                    .withRefusal(new Policy.Refusal(30, null, "Mirroring is not allowed; see /dumps."))
                    .withBans(List.of(new Ban("b", BanType.IP, "192.0.2.1", "the copier from incident 4711", "alice",
                            Instant.parse("2026-11-22T09:00:00Z"), null))));
            Decision.Refuse refusal = refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
            assertThat(refusal.detail()).isEqualTo("Mirroring is not allowed; see /dumps.").doesNotContain("4711");
        }

        @Test
        void anOperatorsExpiredBanStaysListedButNoLongerMatches() {
            Instant expiry = Instant.parse("2026-11-22T10:00:10Z");
            ThrottleEngine engine = engine(Policy.defaults().withBans(List.of(new Ban("b", BanType.IP, "192.0.2.1",
                    "r", "alice", Instant.parse("2026-11-22T09:00:00Z"), expiry))));
            refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
            clock.advance(Duration.ofSeconds(10));
            served(decide(engine, "192.0.2.1", CURL));
            assertThat(engine.policy().bans()).hasSize(1);
            assertThat(engine.policy().version()).isEqualTo(1);
        }
    }

    @Test
    void theNewFieldsSurviveJsonAndAnOlderPolicyFileGetsTheirDefaults() throws Exception {
        Policy policy = Policy.defaults().withEscalation(List.of(new Escalation(Escalation.Scope.ADDRESS, 20, 600,
                        3_600, 2.0, 86_400))).withForwardedHeader("CF-Connecting-IP")
                .withPerAddress(new Policy.PerAddress(32, 56, 15, 80, 40))
                .withRoutes(List.of(new Route(Route.Match.PREFIX, "/search", null, List.of("GET"), List.of(),
                        List.of(), 1, new Policy.HitStack(15, 3), "search is expensive")));
        String json = PolicyJson.mapper().writeValueAsString(policy);
        assertThat(PolicyJson.mapper().readValue(json, Policy.class)).isEqualTo(policy);
        assertThat(json).contains("\"scope\":\"address\"", "\"match\":\"prefix\"").doesNotContain("\"hitStack\":{\"w"
                + "indowSeconds\":15,\"maxHits\":80");

        ObjectNode tree = PolicyJson.mapper().valueToTree(Policy.defaults());
        tree.remove(List.of("perAddress", "routes", "forwardedHeader", "escalation"));
        String older = tree.toString();
        assertThat(older).doesNotContain("perAddress", "routes", "forwardedHeader", "escalation");
        Policy read = PolicyJson.mapper().readValue(older, Policy.class);
        assertThat(read.perAddress()).isEqualTo(Policy.PerAddress.DEFAULTS);
        assertThat(read.routes()).isEqualTo(Route.DEFAULTS);
        assertThat(read.forwardedHeader()).isEqualTo("X-Forwarded-For");
        assertThat(read.escalation()).isEmpty();
    }
}

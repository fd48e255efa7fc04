package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BROWSER;
import static io.sluice.engine.EngineFixture.CURL;
import static io.sluice.engine.EngineFixture.GOOGLEBOT;
import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static io.sluice.engine.EngineFixture.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.AllowType;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.NetworkFunnel;
import io.sluice.engine.telemetry.NetworkRow;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The browser check (issue 46): a browser claim is a claim. When the check asks, a page without a pass gets the
 * interstitial; a pass is an identity held to one person's pace; a quiet day asks no one.
 */
class BrowserCheckTest {

    private static final long DAY = 86_400_000L;
    private final ManualClock clock = ManualClock.at("2026-12-01T10:00:00Z");

    private ThrottleEngine engine(Policy policy) {
        return EngineFixture.engine(clock, policy);
    }

    private static Policy withMode(BrowserCheck.Mode mode) {
        return Policy.defaults().withBrowserCheck(BrowserCheck.DEFAULTS.withMode(mode));
    }

    /** A browser's navigation to {@code path}: what Chromium sends for a page. */
    private static Request page(String ip, String path) {
        return Request.get(ip, BROWSER, path).asNavigation();
    }

    /** A plain HTTP client with a browser's user agent: no Sec-Fetch headers, no Accept. */
    private static Request plain(String ip, String path) {
        return Request.get(ip, BROWSER, path);
    }

    private String passFor(ThrottleEngine engine, String ip, boolean weak) {
        String id = "p" + ip.replace('.', '_').replace(':', '-') + (weak ? "w" : "s");
        return engine.browserPasses().mint(id, weak, IpAddress.parse(ip), BROWSER, clock.millis() + DAY);
    }

    @Nested
    class OnAQuietDay {

        @Test
        void adaptiveAsksNoOneWithoutPressure() {
            ThrottleEngine engine = engine(Policy.defaults());
            for (int i = 0; i < 10; i++) {
                served(engine.decide(page("192.0.2." + i, "/articles/" + i)));
                served(engine.decide(plain("198.51.100." + i, "/articles/" + i)));
            }
            assertThat(engine.snapshot().browserCheck().challenged()).isZero();
            assertThat(engine.snapshot().browserCheck().underPressure()).isFalse();
        }

        @Test
        void offNeverAsksEvenUnderPressure() {
            ThrottleEngine engine = engine(withMode(BrowserCheck.Mode.OFF));
            for (int i = 0; i < 40; i++) {
                admitted(engine.decide(page("192.0.2." + i, "/a")));
            }
            admitted(engine.decide(page("198.51.100.1", "/a")));
        }

        @Test
        void aRouteMarkedChallengeAsksEvenWhenQuiet() {
            Route search = new Route(Route.Match.PREFIX, "/search", null, List.of(), List.of(), List.of(), 1, null,
                    "search costs the site", true);
            List<Route> routes = new ArrayList<>(Route.DEFAULTS);
            routes.add(0, search);
            ThrottleEngine engine = engine(Policy.defaults().withRoutes(routes));
            refused(engine.decide(page("192.0.2.1", "/search")), Reason.CHALLENGE);
            served(engine.decide(page("192.0.2.1", "/articles/1")));
        }

        @Test
        void aNetworkTheOperatorNamedIsAlwaysAsked() {
            ThrottleEngine engine = engine(Policy.defaults().withBrowserCheck(
                    BrowserCheck.DEFAULTS.withAlwaysChallenge(List.of("203.0.113.0/24"))));
            refused(engine.decide(page("203.0.113.7", "/")), Reason.CHALLENGE);
            served(engine.decide(page("203.0.114.7", "/")));
        }
    }

    @Nested
    class WhenItAsks {

        private final ThrottleEngine engine = engine(withMode(BrowserCheck.Mode.ALWAYS));

        @Test
        void aPageWithoutAPassGetsTheInterstitialAtThePolicysDifficulty() {
            Decision.Refuse challenge = refused(engine.decide(page("192.0.2.1", "/articles/1")), Reason.CHALLENGE);
            assertThat(challenge.status()).isEqualTo(403);
            assertThat(challenge.challengeBits()).isEqualTo(BrowserCheck.DEFAULTS.difficulty());
            assertThat(challenge.dropPass()).isFalse();
            assertThat(engine.snapshot().browserCheck().challenged()).isEqualTo(1);
        }

        @Test
        void aFleetStoppedAtItsFirstPagesShowsAddressByAddressOnItsNetworksRow() {
            for (int host = 1; host <= 40; host++) {
                refused(engine.decide(page("203.0.113." + host, "/search?q=" + host)), Reason.CHALLENGE);
            }

            NetworkRow fleet = engine.snapshot().networks().stream()
                    .filter(row -> row.network().equals("203.0.113.0/24")).findFirst().orElseThrow();
            assertThat(fleet.addresses()).isEqualTo(40);
            assertThat(fleet.refused()).isEqualTo(40);
            assertThat(fleet.hits()).as("asked, not served: no hit on any client's stack").isZero();
        }

        @Test
        void eachStepOfTheFunnelShowsOnItsNetworksRowOverTheLastMinuteAndANetworkNeverAskedShowsNone() {
            // three browsers of one /24 asked; two earn a pass (one by the no-JavaScript path), one answer refused
            for (int host = 1; host <= 3; host++) {
                refused(engine.decide(page("203.0.113." + host, "/articles/" + host)), Reason.CHALLENGE);
            }
            assertThat(engine.earnPass(IpAddress.parse("203.0.113.1"), false)).isZero();
            assertThat(engine.earnPass(IpAddress.parse("203.0.113.2"), true)).isZero();
            engine.answerRefused(IpAddress.parse("203.0.113.3"));
            String strong = passFor(engine, "203.0.113.1", false);
            String weak = passFor(engine, "203.0.113.2", true);
            for (int page = 1; page <= 3; page++) {
                served(engine.decide(page("203.0.113.1", "/articles/" + page).withPass(strong)));
            }
            served(engine.decide(page("203.0.113.2", "/articles/1").withPass(weak)));
            // a neighbouring network the check never meets: a command-line client is a bot, never asked
            served(engine.decide(Request.get("198.51.100.7", CURL, "/")));

            NetworkRow fleet = networkRow("203.0.113.0/24");
            assertThat(fleet.funnel()).isEqualTo(new NetworkFunnel(3, 1, 1, 1, 4));
            assertThat(fleet.refused()).as("the interstitials, refusals on its clients' rows").isEqualTo(3);
            assertThat(fleet.hits()).as("the pages served on the passes").isEqualTo(4);
            NetworkRow untouched = networkRow("198.51.100.0/24");
            assertThat(untouched.hits()).isEqualTo(1);
            assertThat(untouched.funnel()).isEqualTo(NetworkFunnel.NONE);
            BrowserCheckCounts site = engine.snapshot().browserCheck();
            assertThat(new NetworkFunnel(site.challenged(), site.passesEarned(), site.weakPassesEarned(),
                    site.answersRefused(), site.servedOnPass())).as("the whole site's funnel: the same steps")
                    .isEqualTo(fleet.funnel());

            // a minute later, only what came since
            clock.advanceMillis(61_000);
            served(engine.decide(page("203.0.113.1", "/articles/9").withPass(strong)));
            assertThat(networkRow("203.0.113.0/24").funnel()).isEqualTo(new NetworkFunnel(0, 0, 0, 0, 1));
        }

        @Test
        void aFormRefusedBeforeTheClientRulesIsOnTheRowOfAClientNeverSeenBefore() {
            Request post = new Request("203.0.113.5", BROWSER, null, "POST", "/comment", null, null, "navigate",
                    "text/html", null);
            refused(engine.decide(post), Reason.PASS_REQUIRED);

            NetworkRow row = networkRow("203.0.113.0/24");
            assertThat(row.refused()).as("its refusal, as the access log has it").isEqualTo(1);
            assertThat(row.addresses()).isEqualTo(1);
            assertThat(row.hits()).isZero();
        }

        private NetworkRow networkRow(String cidr) {
            return engine.snapshot().networks().stream().filter(row -> row.network().equals(cidr)).findFirst()
                    .orElseThrow(() -> new AssertionError("no row for " + cidr));
        }

        @Test
        void aPlainClientWithABrowsersUserAgentIsAskedLikeABrowser() {
            refused(engine.decide(plain("192.0.2.1", "/")), Reason.CHALLENGE);
        }

        @Test
        void aValidPassIsServedAndCounted() {
            String pass = passFor(engine, "192.0.2.1", false);
            Decision.Admit admit = admitted(engine.decide(page("192.0.2.1", "/a").withPass(pass)));
            assertThat(admit.client().pass()).isEqualTo(ClientInfo.Pass.STRONG);
            assertThat(engine.snapshot().browserCheck().servedOnPass()).isEqualTo(1);
            assertThat(engine.snapshot().browserCheck().passesInUse()).isEqualTo(1);
        }

        @Test
        void aPassKeepsWorkingAcrossItsSlash24ButNotOutsideIt() {
            String pass = passFor(engine, "192.0.2.1", false);
            admitted(engine.decide(page("192.0.2.200", "/a").withPass(pass)));
            refused(engine.decide(page("192.0.3.1", "/a").withPass(pass)), Reason.CHALLENGE);
        }

        @Test
        void anExpiredOrEditedPassIsNoPass() {
            String pass = passFor(engine, "192.0.2.1", false);
            char last = pass.charAt(pass.length() - 1);
            String edited = pass.substring(0, pass.length() - 1) + (last == 'A' ? 'B' : 'A');
            refused(engine.decide(page("192.0.2.1", "/a").withPass(edited)), Reason.CHALLENGE);
            refused(engine.decide(page("192.0.2.1", "/a").withPass("garbage")), Reason.CHALLENGE);
            clock.advanceMillis(DAY + 1);
            refused(engine.decide(page("192.0.2.1", "/a").withPass(pass)), Reason.CHALLENGE);
        }

        @Test
        void assetsFeedsAndWellKnownFilesAreNeverAsked() {
            served(engine.decide(Request.get("192.0.2.1", BROWSER, "/site.css")));
            served(engine.decide(Request.get("192.0.2.1", BROWSER, "/img/photo.jpg")));
            served(engine.decide(page("192.0.2.2", "/robots.txt")));
            served(engine.decide(page("192.0.2.3", "/blog/index.rss")));
            served(engine.decide(page("192.0.2.4", "/.well-known/security.txt")));
        }

        @Test
        void crawlersBotsAndTheAllowListAreNeverAsked() {
            served(engine.decide(Request.get("192.0.2.1", CURL, "/")));
            assertThat(engine.decide(Request.get("192.0.2.2", GOOGLEBOT, "/"))).isNotInstanceOf(Decision.Refuse.class
                    ).satisfies(d -> assertThat(d.client().pass()).isEqualTo(ClientInfo.Pass.UNCHECKED));
            ThrottleEngine allowing = engine(withMode(BrowserCheck.Mode.ALWAYS).withAllow(List.of(
                    new AllowEntry(AllowType.IP, "192.0.2.50", false, "the office"))));
            served(allowing.decide(page("192.0.2.50", "/")));
        }

        @Test
        void aFormPostWithoutAPassIsRefusedWithItsOwnReason() {
            Request post = new Request("192.0.2.1", BROWSER, null, "POST", "/comment", null, null, "navigate",
                    "text/html", null);
            refused(engine.decide(post), Reason.PASS_REQUIRED);
        }

        @Test
        void aFetchWithoutAPassIsNotChallengedButWaitsBehindTheLoadGate() {
            Request fetch = new Request("192.0.2.1", BROWSER, null, "GET", "/api/items", null, "empty", "cors",
                    "application/json", null);
            Decision.Admit admit = admitted(engine.decide(fetch));
            assertThat(admit.client().pass()).isEqualTo(ClientInfo.Pass.MISSING);
            assertThat(admit.client().deferredByLoad()).isTrue();
        }
    }

    @Nested
    class UnderPressure {

        @Test
        void browsersAtMaxActiveInFlightPutTheSiteUnderPressure() {
            ThrottleEngine engine = engine(Policy.defaults());
            int maxActive = Policy.defaults().load().maxActive();
            List<Decision.Admit> running = new ArrayList<>();
            for (int i = 0; i < maxActive; i++) {
                running.add(admitted(engine.decide(page("10.0." + i + ".1", "/slow"))));
            }
            refused(engine.decide(page("10.1.0.1", "/")), Reason.CHALLENGE);
            String pass = passFor(engine, "10.2.0.1", false);
            assertThat(admitted(engine.decide(page("10.2.0.1", "/").withPass(pass))).client().pass())
                    .isEqualTo(ClientInfo.Pass.STRONG);
            running.forEach(a -> a.admission().complete(200, 1_000_000));
            // held for pressureHoldSeconds after it was last seen, so the check does not flap off the moment it worked
            refused(engine.decide(page("10.1.0.2", "/")), Reason.CHALLENGE);
            assertThat(engine.snapshot().browserCheck().underPressure()).isTrue();
            clock.advanceMillis(BrowserCheck.DEFAULTS.pressureHoldSeconds() * 1000L);
            served(engine.decide(page("10.1.0.3", "/")));
            assertThat(engine.snapshot().browserCheck().underPressure()).isFalse();
        }

        @Test
        void aWeakPassWaitsBehindCrawlersAndBotsWhileAStrongOneIsServed() {
            ThrottleEngine engine = engine(withMode(BrowserCheck.Mode.ALWAYS));
            int maxActive = Policy.defaults().load().maxActive();
            for (int i = 0; i < maxActive; i++) {
                admitted(engine.decide(Request.get("10.0." + i + ".9", CURL, "/")));
            }
            String weak = passFor(engine, "192.0.2.1", true);
            waiting(engine.decide(page("192.0.2.1", "/").withPass(weak)), Reason.LOAD);
            String strong = passFor(engine, "198.51.100.1", false);
            admitted(engine.decide(page("198.51.100.1", "/").withPass(strong)));
        }
    }

    @Nested
    class APassIsAnIdentity {

        @Test
        void onePassSharedByManyAddressesIsHeldToOnePersonsPace() {
            ThrottleEngine engine = engine(withMode(BrowserCheck.Mode.ALWAYS));
            String pass = passFor(engine, "192.0.2.1", false);
            int perPass = BrowserCheck.DEFAULTS.perPass().maxHits();
            for (int i = 0; i < perPass; i++) {
                served(engine.decide(page("192.0.2." + (i + 1), "/p/" + i).withPass(pass)));
            }
            Decision.Refuse again = refused(engine.decide(page("192.0.2.99", "/p/x").withPass(pass)),
                    Reason.CHALLENGE);
            assertThat(again.dropPass()).isTrue();
            assertThat(engine.snapshot().browserCheck().passesDropped()).isEqualTo(1);
        }

        @Test
        void aPassDroppedUnderPressureIsAskedHarder() {
            ThrottleEngine engine = engine(Policy.defaults());
            for (int i = 0; i < Policy.defaults().load().maxActive(); i++) {
                admitted(engine.decide(page("10.0." + i + ".1", "/slow")));
            }
            String pass = passFor(engine, "192.0.2.1", false);
            for (int i = 0; i < BrowserCheck.DEFAULTS.perPass().maxHits(); i++) {
                admitted(engine.decide(page("192.0.2." + (i + 1), "/p/" + i).withPass(pass)));
            }
            Decision.Refuse again = refused(engine.decide(page("192.0.2.99", "/p/x").withPass(pass)),
                    Reason.CHALLENGE);
            assertThat(again.challengeBits()).isEqualTo(BrowserCheck.DEFAULTS.difficulty()
                    + BrowserGate.HARDER_BITS);
        }
    }

    @Nested
    class ADroppedPassCoolsItsNetworkDown {

        private final ThrottleEngine engine = engine(withMode(BrowserCheck.Mode.ALWAYS));
        private final long cooldown = BrowserCheck.DEFAULTS.networks().passCooldownSeconds() * 1000L;

        /** Uses {@code pass} from the addresses of 192.0.2.0/24 until it is dropped, then {@code extra} times more. */
        private void wearOut(String pass, int extra) {
            int perPass = BrowserCheck.DEFAULTS.perPass().maxHits();
            for (int i = 0; i < perPass; i++) {
                served(engine.decide(page("192.0.2." + (i + 1), "/p/" + i).withPass(pass)));
            }
            for (int i = 0; i <= extra; i++) {
                refused(engine.decide(page("192.0.2." + (i + 100), "/p/x").withPass(pass)), Reason.CHALLENGE);
            }
        }

        @Test
        void aNetworkThatNeverLostAPassEarnsAsManyAsItsPeopleAsk() {
            for (int i = 0; i < 500; i++) {
                assertThat(engine.earnPass(IpAddress.parse("192.0.2." + (i % 250 + 1)), false)).isZero();
            }
            assertThat(engine.snapshot().browserCheck().passesEarned()).isEqualTo(500);
        }

        @Test
        void afterADropItsNextPassWaitsTheCooldownWhileOtherNetworksDoNot() {
            wearOut(passFor(engine, "192.0.2.1", false), 0);
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.77"), false)).isEqualTo(cooldown);
            assertThat(engine.earnPass(IpAddress.parse("192.0.3.77"), false)).isZero();
            clock.advanceMillis(cooldown - 1);
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.77"), false)).isEqualTo(1);
            clock.advanceMillis(1);
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.77"), false)).isZero();
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.78"), true)).as("one pass per cooldown")
                    .isEqualTo(cooldown);
            BrowserCheckCounts counts = engine.snapshot().browserCheck();
            assertThat(counts.passesEarned()).isEqualTo(2);
            assertThat(counts.passesWithheld()).isEqualTo(3);
        }

        @Test
        void aSharedPassKeptInUseAfterItsDropIsOneDropNotMany() {
            wearOut(passFor(engine, "192.0.2.1", false), 40);
            assertThat(engine.snapshot().browserCheck().passesDropped()).isEqualTo(41);
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.77"), false)).isEqualTo(cooldown);
        }

        @Test
        void eachFurtherDropDoublesTheWaitAndAQuietHourForgetsThem() {
            wearOut(passFor(engine, "192.0.2.1", false), 0);
            clock.advanceMillis(cooldown);
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.5"), false)).isZero();
            clock.advanceMillis(15_000); // the first pass's stack has emptied; the second is worn out as fast
            wearOut(passFor(engine, "192.0.2.5", false), 0);
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.5"), false)).isEqualTo(2 * cooldown - 15_000);
            clock.advanceMillis(PassCooldowns.FORGET.toMillis());
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.5"), false)).isZero();
            assertThat(engine.earnPass(IpAddress.parse("192.0.2.6"), false)).isZero();
        }

        @Test
        void aCooldownOfZeroNeverMakesANetworkWait() {
            BrowserCheck check = BrowserCheck.DEFAULTS.withMode(BrowserCheck.Mode.ALWAYS);
            BrowserCheck.Networks n = check.networks();
            ThrottleEngine noWait = engine(Policy.defaults().withBrowserCheck(new BrowserCheck(check.mode(),
                    check.difficulty(), check.passTtlSeconds(), check.noScript(), check.noScriptWaitSeconds(),
                    check.pressureInFlight(), check.pressureHoldSeconds(), check.perPass(), new BrowserCheck.Networks(
                    n.ipv4Prefix(), n.ipv6Prefix(), n.withoutPass(), n.withPass(), 0, null, null),
                    check.exemptPaths(), check.alwaysChallenge())));
            String pass = passFor(noWait, "192.0.2.1", false);
            for (int i = 0; i <= BrowserCheck.DEFAULTS.perPass().maxHits(); i++) {
                noWait.decide(page("192.0.2." + (i + 1), "/p/" + i).withPass(pass));
            }
            assertThat(noWait.snapshot().browserCheck().passesDropped()).isEqualTo(1);
            assertThat(noWait.earnPass(IpAddress.parse("192.0.2.77"), false)).isZero();
        }

        @Test
        void onAQuietDayADroppedPassIsNotAskedAgainButJudgedByTheClientsOwnLimits() {
            ThrottleEngine quiet = engine(Policy.defaults());
            String pass = passFor(quiet, "192.0.2.1", false);
            for (int i = 0; i < BrowserCheck.DEFAULTS.perPass().maxHits(); i++) {
                served(quiet.decide(page("192.0.2." + (i + 1), "/p/" + i).withPass(pass)));
            }
            Decision.Admit admit = admitted(quiet.decide(page("192.0.2.99", "/p/x").withPass(pass)));
            assertThat(admit.client().pass()).isEqualTo(ClientInfo.Pass.MISSING);
            assertThat(quiet.snapshot().browserCheck().challenged()).isZero();
        }
    }

    @Nested
    class NetworkBudgets {

        @Test
        void aSlash24OverItsBudgetIsAskedWhileItsNeighboursAreNot() {
            ThrottleEngine engine = engine(Policy.defaults());
            int budget = BrowserCheck.DEFAULTS.networks().withoutPass().maxHits();
            for (int i = 0; i < budget; i++) {
                served(engine.decide(page("192.0.2." + (i % 250 + 1), "/p/" + i)));
            }
            refused(engine.decide(page("192.0.2.251", "/p/next")), Reason.CHALLENGE);
            served(engine.decide(page("192.0.3.1", "/p/next")));
        }

        @Test
        void whatIsNotAPageIsRefusedOnceTheBudgetIsSpent() {
            ThrottleEngine engine = engine(Policy.defaults());
            int budget = BrowserCheck.DEFAULTS.networks().withoutPass().maxHits();
            for (int i = 0; i <= budget; i++) {
                engine.decide(page("192.0.2." + (i % 250 + 1), "/p/" + i));
            }
            Request fetch = new Request("192.0.2.9", BROWSER, null, "GET", "/api/items", null, "empty", "cors",
                    "application/json", null);
            Decision.Refuse refusal = refused(engine.decide(fetch), Reason.NETWORK_BUDGET);
            assertThat(refusal.retryAfterSeconds()).isPositive();
        }

        @Test
        void networkBudgetsAreIpv6Slash48ByDefault() {
            ThrottleEngine engine = engine(Policy.defaults());
            int budget = BrowserCheck.DEFAULTS.networks().withoutPass().maxHits();
            for (int i = 0; i < budget; i++) {
                served(engine.decide(page("2001:db8:1:" + Integer.toHexString(i) + "::1", "/p/" + i)));
            }
            refused(engine.decide(page("2001:db8:1:ffff::1", "/p/next")), Reason.CHALLENGE);
            served(engine.decide(page("2001:db8:2::1", "/p/next")));
        }
    }

    @Nested
    class ItsPolicy {

        @Test
        void badNumbersAreNamedAndNothingChanges() {
            ThrottleEngine engine = engine(Policy.defaults());
            BrowserCheck bad = new BrowserCheck(BrowserCheck.Mode.ALWAYS, 40, 10, true, 0, -1, -1,
                    new Policy.HitStack(0, 0), new BrowserCheck.Networks(4, 200, null, null, -1, 0, 0),
                    List.of("relative", ""), List.of("not-a-cidr"));
            List<String> fields = PolicyValidator.validate(Policy.defaults().withBrowserCheck(bad)).stream()
                    .map(FieldError::field).toList();
            assertThat(fields).contains("browserCheck.difficulty", "browserCheck.passTtlSeconds",
                    "browserCheck.noScriptWaitSeconds", "browserCheck.pressureInFlight",
                    "browserCheck.pressureHoldSeconds", "browserCheck.perPass.windowSeconds",
                    "browserCheck.perPass.maxHits", "browserCheck.networks.ipv4Prefix",
                    "browserCheck.networks.ipv6Prefix", "browserCheck.networks.passCooldownSeconds",
                    "browserCheck.networks.maxConcurrentWithoutPass", "browserCheck.networks.maxConcurrentWithPass",
                    "browserCheck.exemptPaths[0]", "browserCheck.exemptPaths[1]",
                    "browserCheck.alwaysChallenge[0]");
            assertThat(engine.policy().browserCheck()).isEqualTo(BrowserCheck.DEFAULTS);
        }

        @Test
        void theModeChangesLiveOnTheNextRequest() {
            ThrottleEngine engine = engine(Policy.defaults());
            served(engine.decide(page("192.0.2.1", "/")));
            EngineFixture.changePolicyUnaudited(engine,
                    p -> p.withBrowserCheck(p.browserCheck().withMode(BrowserCheck.Mode.ALWAYS)));
            refused(engine.decide(page("192.0.2.1", "/")), Reason.CHALLENGE);
            BrowserCheckCounts counts = engine.snapshot().browserCheck();
            assertThat(counts.mode()).isEqualTo(BrowserCheck.Mode.ALWAYS);
        }
    }
}

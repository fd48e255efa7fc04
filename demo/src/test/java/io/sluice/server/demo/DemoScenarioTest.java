package io.sluice.server.demo;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.Request;
import io.sluice.engine.RequestClass;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.DemoScenario.Phase;
import io.sluice.server.testkit.Servers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The demo's story against a real front end and the demo site, with short phases. */
class DemoScenarioTest {
    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers(Demo::start);

    @Test
    void thePhasesComeInOrderOnALoop() {
        Duration phase = DemoScenario.DEFAULT_PHASE;
        assertThat(phase).isEqualTo(Duration.ofSeconds(36));
        assertThat(DemoScenario.phaseAt(Duration.ZERO, phase, Phase.QUIET)).isEqualTo(Phase.QUIET);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(37), phase, Phase.QUIET)).isEqualTo(Phase.SITE_COPIER);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(72), phase, Phase.QUIET)).isEqualTo(Phase.CRAWLER_STORM);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(108), phase, Phase.QUIET)).isEqualTo(Phase.SCRAPER_FLEET);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(179), phase, Phase.QUIET)).isEqualTo(Phase.SLOW_UPSTREAM);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(180), phase, Phase.QUIET)).as("the loop: 3 minutes")
                .isEqualTo(Phase.QUIET);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(1), phase, Phase.SLOW_UPSTREAM))
                .isEqualTo(Phase.SLOW_UPSTREAM);
    }

    @Test
    void aBrowserFetchesTheGalleryWithItsStylesheetScriptAndImagesAndTheCopierRotatesAgentsAndAddresses() {
        assertThat(DemoScenario.browsing(0)).startsWith("/gallery", "/static/site.css", "/static/app.js")
                .hasSize(3 + DemoSite.GALLERY_IMAGES);
        assertThat(DemoScenario.browsing(1)).containsExactly("/page/7");
        DemoScenario.Visitor copier = DemoScenario.cast().stream().filter(v -> v.name().equals("site copier"))
                .findFirst().orElseThrow();
        assertThat(copier.addresses()).hasSize(6).allMatch(a -> a.startsWith("127.0.2."));
        assertThat(copier.userAgents()).hasSizeGreaterThan(5).allMatch(a -> a.startsWith("Mozilla/5.0"));
        assertThat(copier.phases()).containsExactly(Phase.SITE_COPIER);
    }

    @Test
    void theCopierAndTheStormAreRefusedWhilePeopleAreServed() throws Exception {
        DemoUpstream site = servers.add(DemoUpstream.start(16));
        SluiceServer server = servers.add(SluiceServer.start(ServerConfig.demo(state).withUpstream(site.uri())));
        DemoScenario scenario = servers.add(DemoScenario.start(List.of(server.frontUri()), site.pages(),
                Duration.ofSeconds(6), Phase.SITE_COPIER));
        assertThat(scenario.phase()).isEqualTo(Phase.SITE_COPIER);

        // The copier stopped, whatever user agent it sends: its pages get the browser check's interstitial (it claims
        // browsers, runs no script, and presses the site or its /24's budget), its images are refused (its addresses
        // over the per-address hit stack, or the load). Whether a first page is served before the pressure begins is
        // a matter of milliseconds, so it is not asked. Then the storm's crawlers refused.
        await(() -> scenario.statusCounts().entrySet().stream().anyMatch(e -> e.getKey().startsWith("site copier")
                && (e.getKey().endsWith(" 403") || e.getKey().endsWith(" 429") || e.getKey().endsWith(" 503"))),
                "the copier stopped");
        await(() -> scenario.statusCounts().entrySet().stream()
                .anyMatch(e -> e.getKey().startsWith("crawler storm") && e.getKey().endsWith(" 503")),
                "a crawler of the storm refused");
        await(() -> count(scenario, "browser (Firefox) 200") > 0, "the browser served");
        // the next phase's first moment (the scraper fleet, theScraperFleet... below, which ends in the slow upstream)
        await(() -> scenario.phase() == Phase.SCRAPER_FLEET, "the end of the storm");

        Map<String, Long> counts = scenario.statusCounts();
        assertThat(counts.keySet()).as("people are served, gallery images and all")
                .noneMatch(k -> k.startsWith("browser") && !k.endsWith(" 200"));
        assertThat(counts.keySet()).as("nobody was refused a connection").noneMatch(k -> k.endsWith(" 0"));
    }

    @Test
    void theFleetIsAFewHundredAddressesInFourNetworksWithCurrentBrowsersEachUnderEveryPerClientLimit() {
        DemoScenario.Visitor fleet = DemoScenario.cast().stream().filter(v -> v.name().equals("scraper fleet"))
                .findFirst().orElseThrow();
        assertThat(fleet.person()).as("runs no script").isFalse();
        assertThat(fleet.phases()).containsExactly(Phase.SCRAPER_FLEET);
        assertThat(fleet.addresses()).hasSize(256).doesNotHaveDuplicates()
                .allMatch(a -> a.matches("127\\.1\\.[0-3]\\.\\d+"));
        assertThat(fleet.addresses().stream().map(a -> a.substring(0, a.lastIndexOf('.'))).distinct())
                .containsExactlyInAnyOrder("127.1.0", "127.1.1", "127.1.2", "127.1.3");
        Policy policy = Policy.defaults();
        assertThat(fleet.userAgents()).hasSizeGreaterThan(4).allSatisfy(agent ->
                assertThat(CrawlerListClassifier.bundled().classify(agent, policy.classification()).requestClass())
                        .as(agent).isEqualTo(RequestClass.BROWSER));
        // one request every period, each from the next address: what each address and each /24 sends in a window
        long perAddress = policy.hitStack().windowSeconds() * 1_000L
                / (fleet.periodMillis() * fleet.addresses().size()) + 1;
        assertThat(perAddress).as("pages per address in a hit stack's window").isLessThan(policy.hitStack().maxHits())
                .isLessThan(policy.perAddress().maxHits());
        long perNetwork = policy.browserCheck().networks().withoutPass().windowSeconds() * 1_000L
                / fleet.periodMillis() / 4;
        assertThat(perNetwork).as("a /24's pages in its budget's window: over it")
                .isGreaterThan(policy.browserCheck().networks().withoutPass().maxHits());
        assertThat(DemoScenario.scraping(0)).singleElement().asString().startsWith("/search?q=");
        assertThat(DemoScenario.scraping(2)).singleElement().asString().startsWith("/page/");
    }

    /**
     * The scraper fleet's phase against a real front end with the default policy: its first pages are served, and
     * the site is soon under pressure (its searches hold more requests in flight than the load limit); from then on
     * its pages get the browser check's interstitial, which it cannot answer, while the people answer it, earn a
     * pass and are served. Counts, not timing: the fleet's interstitials against its pages served.
     */
    @Test
    void theScraperFleetIsChallengedOnceTheSiteIsUnderPressureWhilePeoplePassAndAreServed() throws Exception {
        DemoUpstream site = servers.add(DemoUpstream.start(16));
        SluiceServer server = servers.add(SluiceServer.start(ServerConfig.demo(state).withUpstream(site.uri())));
        DemoScenario scenario = servers.add(DemoScenario.start(List.of(server.frontUri()), site.pages(),
                Duration.ofSeconds(8), Phase.SCRAPER_FLEET));
        assertThat(scenario.phase()).isEqualTo(Phase.SCRAPER_FLEET);

        await(() -> count(scenario, "scraper fleet 403") >= 300, "300 of the fleet's pages challenged");
        // the four people each met the check once the site was under pressure, and passed
        await(() -> server.engine().snapshot().browserCheck().passesEarned() >= 4, "the people's passes");
        await(() -> scenario.statusCounts().entrySet().stream()
                .filter(e -> e.getKey().startsWith("browser") && e.getKey().endsWith(" 200")
                        && !e.getKey().contains(" asset "))
                .mapToLong(Map.Entry::getValue).sum() >= 8, "the people's pages served");

        Map<String, Long> counts = scenario.statusCounts();
        long served = count(counts, "scraper fleet 200");
        long challenged = count(counts, "scraper fleet 403");
        assertThat(challenged).as("the fleet's pages challenged (%d served)", served).isGreaterThan(4 * served);
        assertThat(counts.keySet()).as("the fleet: served or challenged, never over a limit")
                .filteredOn(k -> k.startsWith("scraper fleet")).allMatch(k -> k.endsWith(" 200") || k.endsWith(" 403"));
        assertThat(counts.keySet()).as("people's pages are served (an interstitial answered is the page)")
                .filteredOn(k -> k.startsWith("browser") && !k.contains(" asset ")).allMatch(k -> k.endsWith(" 200"));
        BrowserCheckCounts check = server.engine().snapshot().browserCheck();
        assertThat(check.underPressure()).isTrue();
        assertThat(check.challenged()).as("every 403 of the fleet was the interstitial").isGreaterThanOrEqualTo(
                challenged);

        await(() -> scenario.phase() == Phase.SLOW_UPSTREAM, "a moment of the slow upstream");
        counts = scenario.statusCounts();
        assertThat(counts.keySet()).as("people's pages are served")
                .filteredOn(k -> k.startsWith("browser") && !k.contains(" asset ")).allMatch(k -> k.endsWith(" 200"));
        assertThat(counts.keySet()).as("nobody was refused a connection").noneMatch(k -> k.endsWith(" 0"));
    }

    private static long count(Map<String, Long> counts, String visitorAndStatus) {
        return counts.getOrDefault(visitorAndStatus, 0L);
    }

    private static long count(DemoScenario scenario, String visitorAndStatus) {
        return scenario.statusCounts().getOrDefault(visitorAndStatus, 0L);
    }

    @Test
    void theDemosCrawlersAreVerifiedAtTheirAddressesSoTheyAreCrawlersNotClaimedBots() throws Exception {
        Map<String, List<String>> crawlers = DemoScenario.crawlerAddresses(CrawlerListClassifier.bundled(),
                Policy.defaults().classification());
        assertThat(crawlers).containsEntry("Googlebot", List.of("127.0.0.21"))
                .containsEntry("bingbot", List.of("127.0.0.22")).hasSizeGreaterThan(10);
        // every crawler of the storm is one the list knows (else it would be a bot, and the demo show no spacing)
        assertThat(DemoScenario.cast()).filteredOn(visitor -> visitor.name().startsWith("crawler storm"))
                .hasSize(12).flatMap(DemoScenario.Visitor::userAgents).allSatisfy(agent ->
                        assertThat(CrawlerListClassifier.bundled().classify(agent, Policy.defaults().classification())
                                .requestClass()).as(agent).isEqualTo(RequestClass.CRAWLER));

        ServerConfig config = ServerConfig.demo(state).withDemoTraffic(true);
        SluiceServer server = servers.start(config);
        assertThat(server.engine().policy().crawlers().verifiedRanges()).containsAllEntriesOf(crawlers);
        Decision googlebot = server.engine().decide(Request.direct("127.0.0.21",
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"));
        assertThat(googlebot.client().requestClass()).isEqualTo(RequestClass.CRAWLER);
    }
}

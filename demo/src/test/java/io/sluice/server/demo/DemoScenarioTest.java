package io.sluice.server.demo;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.Request;
import io.sluice.engine.RequestClass;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
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
        Duration phase = Duration.ofSeconds(45);
        assertThat(DemoScenario.phaseAt(Duration.ZERO, phase, Phase.QUIET)).isEqualTo(Phase.QUIET);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(46), phase, Phase.QUIET)).isEqualTo(Phase.SITE_COPIER);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(90), phase, Phase.QUIET)).isEqualTo(Phase.CRAWLER_STORM);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(179), phase, Phase.QUIET)).isEqualTo(Phase.SLOW_UPSTREAM);
        assertThat(DemoScenario.phaseAt(Duration.ofSeconds(180), phase, Phase.QUIET)).isEqualTo(Phase.QUIET);
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

        // The copier served, then refused: each of its addresses is over the per-address hit stack (50 in 15 s)
        // within about three seconds, whatever user agent it sends. Then the storm's phase, its crawlers refused.
        await(() -> count(scenario, "site copier 200") > 0 && count(scenario, "site copier 503") > 0,
                "the copier served, then refused");
        await(() -> scenario.statusCounts().entrySet().stream()
                .anyMatch(e -> e.getKey().startsWith("crawler storm") && e.getKey().endsWith(" 503")),
                "a crawler of the storm refused");
        await(() -> count(scenario, "browser (Firefox) 200") > 0, "the browser served");
        await(() -> scenario.phase() == Phase.SLOW_UPSTREAM, "a moment of the slow upstream");

        Map<String, Long> counts = scenario.statusCounts();
        assertThat(counts.keySet()).as("people are served, gallery images and all")
                .noneMatch(k -> k.startsWith("browser") && !k.endsWith(" 200"));
        assertThat(counts.keySet()).as("nobody was refused a connection").noneMatch(k -> k.endsWith(" 0"));
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

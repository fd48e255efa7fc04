package io.sluice.engine;

import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.refused;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.CrawlerIdentity;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A verified Web Bot Auth signature is another way to be a verified crawler (docs/manual/signed-agents.md): the
 * prelude asks the installed {@link io.sluice.engine.classify.SignedAgents}, and a request it answers for is a
 * {@code CRAWLER} under the agent's name, spaced as that agent, whatever its user agent or address.
 */
class SignedAgentClassificationTest {

    private static final String CURL = "curl/8.5.0";
    private static final String GOOGLEBOT =
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    private static final SignedMessage GOOD = new SignedMessage("GET", "https", "site.example", "/", null,
            Map.of("signature-input", "good"));
    private static final SignedMessage BAD = new SignedMessage("GET", "https", "site.example", "/", null,
            Map.of("signature-input", "bad"));

    private final ManualClock clock = ManualClock.at("2026-12-01T10:00:00Z");
    private final ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults(),
            CrawlerListClassifier.bundled());

    {
        engine.verifySignedAgentsWith((message, now) -> {
            assertThat(now).isEqualTo(clock.millis()); // judged at the engine's clock
            return "good".equals(message.header("Signature-Input")) ? "fleet.example" : null;
        });
    }

    private Decision decide(String ip, String agent, SignedMessage signed) {
        return engine.decide(Request.direct(ip, agent).withSigned(signed));
    }

    @Test
    void aVerifiedSignatureMakesAnyUserAgentTheAgentsCrawler() {
        Decision.Admit admit = admitted(decide("198.51.100.7", CURL, GOOD));
        assertThat(admit.client().requestClass()).isEqualTo(RequestClass.CRAWLER);
        assertThat(admit.client().crawlerName()).isEqualTo("fleet.example");
        admit.admission().complete(200, 1_000);
        var row = engine.snapshot().topClients().stream().filter(r -> !r.address()).findFirst().orElseThrow();
        assertThat(row.crawlerName()).isEqualTo("fleet.example");
        assertThat(row.crawlerIdentity()).isEqualTo(CrawlerIdentity.VERIFIED);
    }

    @Test
    void aSignatureThatDoesNotVerifyLeavesTheUserAgentsClass() {
        assertThat(admitted(decide("198.51.100.7", CURL, BAD)).client().requestClass()).isEqualTo(RequestClass.BOT);
        // a copied Googlebot user agent from elsewhere is still an unverified claim
        assertThat(admitted(decide("198.51.100.8", GOOGLEBOT, BAD)).client().requestClass())
                .isEqualTo(RequestClass.BOT);
        assertThat(admitted(decide("198.51.100.9", CURL, null)).client().requestClass()).isEqualTo(RequestClass.BOT);
    }

    @Test
    void theAgentIsSpacedAsOneCrawlerFromEveryAddress() {
        admitted(decide("198.51.100.7", CURL, GOOD)).admission().complete(200, 1_000);
        clock.advance(Duration.ofSeconds(5));
        refused(decide("203.0.113.9", "another-worker/2", GOOD), Reason.CRAWLER_SPACING);
    }

    @Test
    void withoutAVerifierInstalledNoSignatureIsBelieved() {
        engine.verifySignedAgentsWith(null);
        assertThat(admitted(decide("198.51.100.7", CURL, GOOD)).client().requestClass()).isEqualTo(RequestClass.BOT);
    }
}

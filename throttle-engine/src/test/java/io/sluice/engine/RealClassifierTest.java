package io.sluice.engine;

import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.decide;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.waiting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine with the shipped crawler list, as the front end builds it. */
class RealClassifierTest {

    private static final String GOOGLEBOT =
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    private static final String FIREFOX =
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0";

    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");
    private final ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults(),
            CrawlerListClassifier.bundled());

    @Test
    void realUserAgentsGetTheirClassAndTheCrawlerRules() {
        Decision.Admit google = admitted(decide(engine, "66.249.66.1", GOOGLEBOT));
        assertThat(google.client().requestClass()).isEqualTo(RequestClass.CRAWLER);
        assertThat(google.client().crawlerName()).isNotBlank();
        google.admission().complete(200, 1000);
        refused(decide(engine, "66.249.66.1", GOOGLEBOT), Reason.CRAWLER_SPACING);
        assertThat(admitted(decide(engine, "192.0.2.1", FIREFOX)).client().requestClass())
                .isEqualTo(RequestClass.BROWSER);
        assertThat(admitted(decide(engine, "192.0.2.1", "curl/8.5.0")).client().requestClass())
                .isEqualTo(RequestClass.BOT);
        assertThat(admitted(engine.decide(Request.direct("192.0.2.1", null))).client())
                .extracting(ClientInfo::requestClass, ClientInfo::userAgent).containsExactly(RequestClass.BOT, "");
    }

    @Test
    void aPauseInstalledWhileARequestWaitsRefusesItWhenItResumes() {
        EngineFixture.changePolicyUnaudited(engine, p -> p.withLoad(new Policy.Load(1, 5, 500)));
        admitted(decide(engine, "192.0.2.1", "curl/8.5.0"));
        Decision.Wait wait = waiting(decide(engine, "192.0.2.2", "curl/8.5.0"), Reason.LOAD);
        EngineFixture.changePolicyUnaudited(engine,
                p -> p.withPause(new Policy.Pause(false, List.of(RequestClass.BOT))));
        refused(wait.deferral().resume(), Reason.PAUSED);
        assertThat(engine.snapshot().load().waiting()).isZero();
    }

    @Test
    void aPeerThatIsNotAnAddressIsACallerError() {
        assertThatThrownBy(() -> engine.decide(Request.direct("not-an-ip", FIREFOX)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void engineConfigRejectsNonsense() {
        assertThatThrownBy(() -> new EngineConfig(0, 50, 3600)).hasMessageContaining("maxTrackedClients");
        assertThatThrownBy(() -> new EngineConfig(10, -1, 3600)).hasMessageContaining("topClients");
        assertThatThrownBy(() -> new EngineConfig(10, 5, 10)).hasMessageContaining("idleSeconds");
        assertThat(EngineConfig.defaults().withTopClients(5).topClients()).isEqualTo(5);
    }
}

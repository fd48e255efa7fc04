package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;

/** Shorthand shared by the rule tests. */
final class EngineFixture {
    static final String BROWSER = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
    static final String GOOGLEBOT = "Googlebot/2.1";
    static final String BINGBOT = "bingbot/2.0";
    static final String CURL = "curl/8.5.0";

    private EngineFixture() {
    }

    static ThrottleEngine engine(ManualClock clock, Policy policy) {
        return new ThrottleEngine(EngineConfig.defaults(), clock, policy, new FakeClassifier());
    }

    /**
     * {@code policy} with the browser check off: for the tests of the other rules, whose browsers would otherwise be
     * challenged once they fill the site (pressure) or one network's budget.
     */
    static Policy withoutBrowserCheck(Policy policy) {
        return policy.withBrowserCheck(policy.browserCheck().withMode(BrowserCheck.Mode.OFF));
    }

    static Decision decide(ThrottleEngine engine, String ip, String agent) {
        return engine.decide(Request.direct(ip, agent));
    }

    static Decision.Admit admitted(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Admit.class);
        return (Decision.Admit) decision;
    }

    static Decision.Refuse refused(Decision decision, Reason reason) {
        assertThat(decision).isInstanceOf(Decision.Refuse.class);
        Decision.Refuse refuse = (Decision.Refuse) decision;
        assertThat(refuse.reason()).isEqualTo(reason);
        return refuse;
    }

    static Decision.Wait waiting(Decision decision, Reason reason) {
        assertThat(decision).isInstanceOf(Decision.Wait.class);
        Decision.Wait wait = (Decision.Wait) decision;
        assertThat(wait.reason()).isEqualTo(reason);
        return wait;
    }

    /** Admits and completes at once, as a fast upstream would. */
    static void served(Decision decision) {
        admitted(decision).admission().complete(200, 1_000_000);
    }
}

package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.UnaryOperator;

/** Shorthand shared by the rule tests. */
final class EngineFixture {
    static final String BROWSER = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
    static final String GOOGLEBOT = "Googlebot/2.1";
    static final String BINGBOT = "bingbot/2.0";
    static final String CURL = "curl/8.5.0";

    /** Each engine's one policy writer, claimed by {@link #changePolicyUnaudited} the first time it writes. */
    private static final Map<ThrottleEngine, PolicyWriter> WRITERS = Collections.synchronizedMap(new WeakHashMap<>());

    private EngineFixture() {
    }

    /**
     * Changes {@code engine}'s policy as an embedder of the bare engine does, through its one {@link PolicyWriter}
     * (claimed here the first time): validated and installed, but with no audit entry and nothing written to disk,
     * which an operator's change through the server always has. For the rule tests, whose subject is what a policy
     * does, not how it is changed.
     */
    static Policy changePolicyUnaudited(ThrottleEngine engine, UnaryOperator<Policy> change) {
        return WRITERS.computeIfAbsent(engine, ThrottleEngine::claimPolicyWriter).update(change);
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

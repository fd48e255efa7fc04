package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.PolicyValidator;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import org.junit.jupiter.api.Test;

class GovernorPolicyJsonTest {

    @Test
    void aGovernorSectionWrittenBeforeTheLatencyAndSlowStartNumbersLoadsWithTheirDefaults() throws Exception {
        String before = """
                {"initialRate": 2.0, "minRate": 0.05, "maxRate": 20.0, "increasePerSecond": 0.1,
                 "decreaseFactor": 0.8, "latencyInflation": 3.0, "backoffBaseMillis": 1000,
                 "backoffMaxMillis": 300000, "backoffForgiveSeconds": 5, "breakerErrorPercent": 10,
                 "breakerMinCalls": 20, "breakerOpenSeconds": 60, "breakerTrialRequests": 3,
                 "giveUpAfterErrors": 20, "maxHoldMillis": 30000}""";
        GovernorPolicy read = PolicyJson.mapper().readValue(before, GovernorPolicy.class);

        assertThat(read.initialRate()).isEqualTo(2.0);
        assertThat(read.latencyInflation()).as("kept as written").isEqualTo(3.0);
        assertThat(read.latencyFloorMillis()).isEqualTo(GovernorPolicy.DEFAULTS.latencyFloorMillis());
        assertThat(read.latencyWindow()).isEqualTo(GovernorPolicy.DEFAULTS.latencyWindow());
        assertThat(read.latencyBaselineWindows()).isEqualTo(GovernorPolicy.DEFAULTS.latencyBaselineWindows());
        assertThat(read.slowStartDoublingSeconds()).isEqualTo(GovernorPolicy.DEFAULTS.slowStartDoublingSeconds());
        assertThat(PolicyValidator.validate(Policy.defaults().withGovernor(read))).isEmpty();
    }

    @Test
    void theDefaultsRoundTrip() throws Exception {
        String json = PolicyJson.mapper().writeValueAsString(GovernorPolicy.DEFAULTS);
        assertThat(json).contains("\"latencyFloorMillis\":50", "\"slowStartDoublingSeconds\":10.0");
        assertThat(PolicyJson.mapper().readValue(json, GovernorPolicy.class)).isEqualTo(GovernorPolicy.DEFAULTS);
    }
}

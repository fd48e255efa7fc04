package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PolicyJsonTest {

    @Test
    void policyWithBansSurvivesARoundTripThroughJson() throws Exception {
        Ban ban = new Ban("b1", BanType.AGENT, "HTTrack", "site copier", "alice",
                Instant.parse("2026-11-22T10:00:00Z"), Instant.parse("2026-11-22T11:00:00Z"));
        Policy policy = Policy.defaults().withBans(List.of(ban)).withVersion(7);

        String json = PolicyJson.mapper().writeValueAsString(policy);
        Policy read = PolicyJson.mapper().readValue(json, Policy.class);

        assertThat(read).isEqualTo(policy);
        assertThat(json).contains("\"type\":\"agent\"", "\"createdAt\":\"2026-11-22T10:00:00Z\"");
    }

    @Test
    void aMisspeltFieldIsAnErrorNotAnIgnoredLimit() {
        String json = "{\"version\":1,\"hitStack\":{\"windowSeconds\":15,\"maxHits\":10,\"maxHist\":5}}";

        assertThatThrownBy(() -> PolicyJson.mapper().readValue(json, Policy.class))
                .isInstanceOf(UnrecognizedPropertyException.class)
                .hasMessageContaining("maxHist");
    }

    @Test
    void crawlerVerificationIsOnWhenAbsentAndThePolicysRangesRoundTrip() throws Exception {
        Policy.Crawlers absent = PolicyJson.mapper().readValue(
                "{\"perCrawlerSeconds\":30,\"allCrawlersSeconds\":2}", Policy.Crawlers.class);
        assertThat(absent.verifySearchEngines()).isTrue();
        assertThat(absent.verifiedRanges()).isEmpty();

        Policy policy = Policy.defaults().withCrawlers(new Policy.Crawlers(30, 2, false,
                Map.of("Googlebot", List.of("127.0.0.2", "2001:db8::/64"))));
        String json = PolicyJson.mapper().writeValueAsString(policy);
        assertThat(PolicyJson.mapper().readValue(json, Policy.class)).isEqualTo(policy);
        assertThat(json).contains("\"verifiedRanges\":{\"Googlebot\":[\"127.0.0.2\",\"2001:db8::/64\"]}");
    }
}

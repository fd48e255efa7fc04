package io.sluice.console.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.PolicyValidator;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.AllowType;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PolicyFormModelTest {
    private final Policy base = Policy.defaults()
            .withAllow(List.of(new AllowEntry(AllowType.IP, "10.0.0.0/8", true, "office"),
                    new AllowEntry(AllowType.AGENT, "UptimeRobot/2.0 (+http://www.uptimerobot.com/)", false, null)))
            .withTrustedProxies(List.of("127.0.0.1", "10.1.0.0/16"))
            .withProgressiveDelay(Map.of(RequestClass.BOT, new Policy.ProgressiveDelay(5, 100, 2_000)));

    @Test
    void everyFieldOfThePolicyHasAnInput() {
        Map<String, String> texts = PolicyFormModel.texts(base);
        assertThat(texts).containsEntry("hitStack.maxHits", "10")
                .containsEntry("crawlers.verifySearchEngines", "true")
                .containsEntry("refusal.infoUrl", "")
                .containsEntry("trustedProxies", "127.0.0.1, 10.1.0.0/16")
                .containsEntry("classification.crawlerTags", "search-engine, ai-crawler, seo, archiver, academic, "
                        + "advertising")
                .containsEntry("allow", "ip 10.0.0.0/8 | exempt-from-pause # office\n"
                        + "agent UptimeRobot/2.0 (+http://www.uptimerobot.com/)")
                .containsEntry("progressiveDelay.BOT", "5, 100, 2000")
                .containsEntry("progressiveDelay.BROWSER", "")
                .containsEntry("governor.maxRate", "20.0")
                .containsEntry("governor.giveUpAfterErrors", "20");
    }

    @Test
    void unchangedTextGivesBackTheSamePolicy() {
        PolicyFormModel.Built built = PolicyFormModel.build(base, PolicyFormModel.texts(base));
        assertThat(built.errors()).isEmpty();
        assertThat(built.policy()).isEqualTo(base);
    }

    @Test
    void editsLandInTheirFieldsAndEverythingElseIsKept() {
        Policy paused = base.withPause(new Policy.Pause(false, List.of(RequestClass.BOT)));
        Map<String, String> texts = new HashMap<>(PolicyFormModel.texts(paused));
        texts.put("governor.maxRate", "12.5");
        texts.put("refusal.infoUrl", "https://example.org/dump");
        texts.put("crawlers.verifySearchEngines", "false");
        texts.put("progressiveDelay.BOT", "");
        texts.put("progressiveDelay.CRAWLER", "1, 200, 3000");
        texts.put("allow", "agent Pingdom # monitoring\n\nip 192.0.2.7");

        Policy edited = PolicyFormModel.build(paused, texts).policy();

        assertThat(edited.governor().maxRate()).isEqualTo(12.5);
        assertThat(edited.refusal().infoUrl()).isEqualTo("https://example.org/dump");
        assertThat(edited.crawlers().verifySearchEngines()).isFalse();
        assertThat(edited.progressiveDelay()).containsOnlyKeys(RequestClass.CRAWLER);
        assertThat(edited.allow()).containsExactly(new AllowEntry(AllowType.AGENT, "Pingdom", false, "monitoring"),
                new AllowEntry(AllowType.IP, "192.0.2.7", false, null));
        assertThat(edited.pause()).as("not on the form, kept").isEqualTo(paused.pause());
        assertThat(PolicyValidator.validate(edited)).isEmpty();
    }

    @Test
    void unreadableTextIsReportedByItsFieldAndNothingIsBuilt() {
        Map<String, String> texts = new HashMap<>(PolicyFormModel.texts(base));
        texts.put("hitStack.maxHits", "ten");
        texts.put("governor.decreaseFactor", "half");
        texts.put("progressiveDelay.BOT", "1, 2");
        texts.put("allow", "office 10.0.0.0/8");

        PolicyFormModel.Built built = PolicyFormModel.build(base, texts);

        assertThat(built.policy()).isNull();
        assertThat(built.errors()).extracting(FieldError::field).containsExactlyInAnyOrder("hitStack.maxHits",
                "governor.decreaseFactor", "progressiveDelay.BOT", "allow");
    }

    @Test
    void serverErrorsFindTheirInput() {
        assertThat(PolicyFormModel.fieldFor("governor.maxRate")).isEqualTo("governor.maxRate");
        assertThat(PolicyFormModel.fieldFor("allow[1].value")).isEqualTo("allow");
        assertThat(PolicyFormModel.fieldFor("trustedProxies[0]")).isEqualTo("trustedProxies");
        assertThat(PolicyFormModel.fieldFor("progressiveDelay.BOT.softHits")).isEqualTo("progressiveDelay.BOT");
        assertThat(PolicyFormModel.fieldFor("bans[0].value")).isNull();
    }
}

package io.sluice.console.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.policy.PolicyJson;
import org.junit.jupiter.api.Test;

class AuditTextTest {
    @Test
    void theDetailsNameEveryChangedFieldWithItsOldAndNewValue() throws Exception {
        JsonNode entry = PolicyJson.mapper().readTree("""
                {"at":"2026-11-22T10:00:00Z","who":"alice","action":"policy.replace","detail":"policy version 3 -> 4",
                 "before":{"hitStack":{"maxHits":10,"windowSeconds":15},"refusal":{"infoUrl":null}},
                 "after":{"hitStack":{"maxHits":8,"windowSeconds":15},"refusal":{"infoUrl":"https://x.example/"}}}
                """);

        String details = AuditText.beforeAfter(entry);

        assertThat(AuditText.line(entry)).isEqualTo(
                "2026-11-22T10:00:00Z  alice  policy.replace  policy version 3 -> 4");
        assertThat(details).contains("hitStack.maxHits: 10 -> 8", "refusal.infoUrl: null -> \"https://x.example/\"")
                .doesNotContain("windowSeconds: 15 ->");
    }

    @Test
    void anEntryWithoutBeforeAndAfterSaysSo() throws Exception {
        JsonNode entry = PolicyJson.mapper().readTree(
                "{\"at\":\"t\",\"who\":\"bob\",\"action\":\"x\",\"detail\":\"d\"}");
        assertThat(AuditText.beforeAfter(entry)).endsWith("nothing recorded before/after");
    }
}

package io.sluice.crawl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlatJsonTest {
    @Test
    void readsWhatThePermitServiceAnswers() {
        Map<String, Object> json = FlatJson.read(
                " {\"domain\" : \"ex\\u0061mple.com\", \"granted\":false, \"waitMillis\": 1234, \"rate\": 2.5,"
                        + " \"reason\": null}");
        assertThat(json).containsEntry("domain", "example.com").containsEntry("granted", false)
                .containsEntry("waitMillis", 1234L).containsEntry("rate", 2.5).containsEntry("reason", null);
    }

    @Test
    void writesWithEscapesAndReadsItBack() {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("domain", "a\"b\\c\n\u0001");
        object.put("status", 429);
        object.put("crawlDelaySeconds", 2.5);
        object.put("optional", null);
        String text = FlatJson.write(object);
        assertThat(text).isEqualTo("{\"domain\":\"a\\\"b\\\\c\\n\\u0001\",\"status\":429,\"crawlDelaySeconds\":2.5,"
                + "\"optional\":null}");
        assertThat(FlatJson.read(text)).containsEntry("domain", "a\"b\\c\n\u0001").containsEntry("status", 429L);
    }

    @Test
    void writesAListOfNamesAsAnArray() {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("domains", List.of("a.example", "b\"c"));
        assertThat(FlatJson.write(object)).isEqualTo("{\"domains\":[\"a.example\",\"b\\\"c\"]}");
    }

    @Test
    void malformedInputIsAClearError() {
        List<String> malformed = List.of("", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\":1} x", "{\"a\":[1]}",
                "{\"a\":\"\\q\"}", "{a:1}", "{\"a\":tru}");
        for (String bad : malformed) {
            assertThatThrownBy(() -> FlatJson.read(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("malformed JSON");
        }
    }
}

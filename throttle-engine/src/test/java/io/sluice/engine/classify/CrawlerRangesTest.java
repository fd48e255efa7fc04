package io.sluice.engine.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.net.IpAddress;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CrawlerRangesTest {

    private final CrawlerRanges bundled = CrawlerRanges.bundled();

    @Test
    void theShippedRangesLoadAndHoldTheMajorCrawlersAddresses() {
        assertThat(bundled.inRanges("Googlebot", IpAddress.parse("66.249.66.1"))).isTrue();
        assertThat(bundled.inRanges("Googlebot", IpAddress.parse("2001:4860:4801:10::1"))).isTrue();
        assertThat(bundled.inRanges("bingbot", IpAddress.parse("40.77.167.1"))).isTrue();
        assertThat(bundled.inRanges("CCBot", IpAddress.parse("18.97.14.84"))).isTrue();
        assertThat(bundled.inRanges("GPTBot", IpAddress.parse("132.196.86.4"))).isTrue();
        // one operator's address verifies only its own crawlers
        assertThat(bundled.inRanges("bingbot", IpAddress.parse("66.249.66.1"))).isFalse();
        assertThat(bundled.inRanges("Googlebot", IpAddress.parse("203.0.113.66"))).isFalse();
        assertThat(bundled.of("Baiduspider").ranges().isEmpty()).isTrue();
        assertThat(bundled.of("Baiduspider").reverseDns()).contains("baidu.com");
        assertThat(bundled.of("curl")).isNull();
    }

    @Test
    void everyNameInTheRangesIsANameOfTheShippedCrawlerList() {
        // an update of the list that renames an entry must not silently leave its crawler unverifiable
        Set<String> listed = CrawlerList.bundled().entries().stream().map(CrawlerEntry::name)
                .collect(Collectors.toSet());
        assertThat(listed).containsAll(bundled.names());
    }

    @Test
    void aBadFileIsRejectedWholeNamingTheEntry() {
        assertThatThrownBy(() -> parse("{\"crawlers\": [{\"names\": [\"A\"], \"prefixes\": [\"10.1.2.3/8\"]}]}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("entry 0")
                .hasMessageContaining("10.0.0.0/8");
        assertThatThrownBy(() -> parse("{\"crawlers\": [{\"names\": [\"A\"]}, {\"names\": [\"A\"]}]}"))
                .hasMessageContaining("entry 1").hasMessageContaining("A is named by an earlier entry");
        assertThatThrownBy(() -> parse("{\"crawlers\": [{\"prefixes\": []}]}")).hasMessageContaining("names");
        assertThatThrownBy(() -> parse("[]")).hasMessageContaining("\"crawlers\"");
    }

    private static CrawlerRanges parse(String json) throws Exception {
        return CrawlerRanges.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "test");
    }
}

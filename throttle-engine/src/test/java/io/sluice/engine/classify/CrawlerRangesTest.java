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

    @Test
    void aBlockWiderThanASlash8OrASlash16IsRefusedNamingIt() throws Exception {
        assertThatThrownBy(() -> parse(entry("A", "0.0.0.0/0"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("entry 0").hasMessageContaining("0.0.0.0/0 is wider than /8");
        assertThatThrownBy(() -> parse(entry("A", "64.0.0.0/4"))).hasMessageContaining("64.0.0.0/4 is wider than /8");
        assertThatThrownBy(() -> parse(entry("A", "::/0"))).hasMessageContaining("::/0 is wider than /16");
        assertThatThrownBy(() -> parse(entry("A", "2000::/4"))).hasMessageContaining("2000::/4 is wider than /16");
        // the limits themselves are allowed
        CrawlerRanges widest = parse(entry("A", "10.0.0.0/8\", \"2001::/16"));
        assertThat(widest.inRanges("A", IpAddress.parse("10.200.1.1"))).isTrue();
        assertThat(widest.inRanges("A", IpAddress.parse("2001:ffff::1"))).isTrue();
    }

    @Test
    void aCopyThatShrinksByMoreThanHalfIsRefusedNamingTheCrawler() throws Exception {
        CrawlerRanges four = parse(entry("A", "192.0.2.0/28\", \"192.0.2.16/28\", \"192.0.2.32/28\", \"192.0.2.48/28"));
        CrawlerRanges two = parse(entry("A", "192.0.2.0/28\", \"192.0.2.16/28"));
        CrawlerRanges one = parse(entry("A", "192.0.2.0/28"));
        assertThat(RangesShrink.problem(four, two)).isNull(); // half is allowed
        assertThat(RangesShrink.problem(four, one)).isEqualTo("shrunk by more than half (blocks: A 4 -> 1)");
        assertThat(RangesShrink.problem(four, CrawlerRanges.none())).contains("A 4 -> 0");
        assertThat(RangesShrink.problem(one, four)).isNull(); // growing is fine
        // a copy of the bundled file with Google's common crawlers cut to one block
        assertThat(RangesShrink.problem(bundled, bundled.overlay(parse(entry("Googlebot", "66.249.64.0/27")))))
                .contains("Googlebot ").contains(" -> 1");
    }

    @Test
    void theBundledCopyIsDatedByItsOldestFetchAndAnOverlayReplacesWholeEntries() throws Exception {
        assertThat(bundled.asOf()).isNotNull();
        assertThat(bundled.asOf().toString()).endsWith("T00:00:00Z");
        assertThat(bundled.prefixCount()).isGreaterThan(100);
        CrawlerRanges operator = parse("{\"crawlers\": [{\"names\": [\"Googlebot\"], \"prefixes\": "
                + "[\"192.0.2.0/24\"], \"sources\": [{\"fetched\": \"2020-01-02 (a note)\"}]}]}");
        assertThat(operator.asOf()).hasToString("2020-01-02T00:00:00Z");
        CrawlerRanges both = bundled.overlay(operator);
        assertThat(both.inRanges("Googlebot", IpAddress.parse("192.0.2.9"))).isTrue();
        assertThat(both.inRanges("Googlebot", IpAddress.parse("66.249.66.1"))).isFalse(); // the entry replaced
        assertThat(both.inRanges("bingbot", IpAddress.parse("40.77.167.1"))).isTrue(); // the others kept
        assertThat(both.asOf()).hasToString("2020-01-02T00:00:00Z");
    }

    private static String entry(String name, String prefixes) {
        return "{\"crawlers\": [{\"names\": [\"" + name + "\"], \"prefixes\": [\"" + prefixes + "\"]}]}";
    }

    private static CrawlerRanges parse(String json) throws Exception {
        return CrawlerRanges.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "test");
    }
}

package io.sluice.engine.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.RequestClass;
import io.sluice.engine.UserAgentMatch;
import io.sluice.engine.policy.Policy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CrawlerListClassifierTest {

    private static final Policy.Classification DEFAULT = Policy.Classification.DEFAULT;
    private static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
            + "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    private static final String GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

    private static CrawlerListClassifier classifier;

    @BeforeAll
    static void load() {
        classifier = CrawlerListClassifier.bundled();
    }

    @Test
    void searchEngineIsACrawlerWithAReadableName() {
        UserAgentMatch match = classifier.classify(GOOGLEBOT, DEFAULT);
        assertThat(match.requestClass()).isEqualTo(RequestClass.CRAWLER);
        assertThat(match.crawlerName()).isEqualTo("Googlebot");
        assertThat(match.tags()).containsExactly("search-engine");
        assertThat(classifier.classify("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
                DEFAULT).crawlerName()).isEqualTo("bingbot");
        assertThat(classifier.classify("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; "
                + "+https://openai.com/gptbot)", DEFAULT).requestClass()).isEqualTo(RequestClass.CRAWLER);
    }

    @Test
    void toolsAndLibrariesAreBotsButNamed() {
        UserAgentMatch curl = classifier.classify("curl/8.5.0", DEFAULT);
        assertThat(curl.requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(curl.crawlerName()).isEqualTo("curl");
        assertThat(curl.tags()).contains("http-library");
        assertThat(classifier.classify("Wget/1.21.4", DEFAULT).requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(classifier.classify("python-requests/2.31.0", DEFAULT).requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(classifier.classify("Mozilla/4.5 (compatible; HTTrack 3.0x; Windows 98)", DEFAULT).requestClass())
                .isEqualTo(RequestClass.BOT);
    }

    @Test
    void browsersAndEverythingElse() {
        assertThat(classifier.classify(CHROME, DEFAULT)).isEqualTo(new UserAgentMatch(RequestClass.BROWSER, null,
                List.of()));
        assertThat(classifier.classify("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
                DEFAULT).requestClass()).isEqualTo(RequestClass.BROWSER);
        assertThat(classifier.classify("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
                + "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1", DEFAULT).requestClass())
                .isEqualTo(RequestClass.BROWSER);
        assertThat(classifier.classify(null, DEFAULT).requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(classifier.classify("", DEFAULT).requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(classifier.classify("MyApp/1.0", DEFAULT)).isEqualTo(new UserAgentMatch(RequestClass.BOT, null,
                List.of()));
        assertThat(classifier.classify("Mozilla/5.0 (compatible)", DEFAULT).requestClass())
                .isEqualTo(RequestClass.BOT);
        // a browser-looking user agent that the list knows as a crawler is a crawler
        assertThat(classifier.classify(CHROME + " (compatible; Googlebot/2.1)", DEFAULT).requestClass())
                .isEqualTo(RequestClass.CRAWLER);
    }

    @Test
    void tagMappingFollowsThePolicyLiveWithoutFlushingTheCache() {
        assertThat(classifier.classify(GOOGLEBOT, DEFAULT).requestClass()).isEqualTo(RequestClass.CRAWLER);
        Policy.Classification onlyLibraries = new Policy.Classification(List.of("http-library"));
        assertThat(classifier.classify(GOOGLEBOT, onlyLibraries).requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(classifier.classify("curl/8.5.0", onlyLibraries).requestClass()).isEqualTo(RequestClass.CRAWLER);
        assertThat(classifier.classify(GOOGLEBOT, new Policy.Classification(List.of())).requestClass())
                .isEqualTo(RequestClass.BOT);
        assertThat(classifier.classify(GOOGLEBOT, null).requestClass()).isEqualTo(RequestClass.CRAWLER);
        assertThat(classifier.classify(GOOGLEBOT, DEFAULT).requestClass()).isEqualTo(RequestClass.CRAWLER);
    }

    @Test
    void cachedAndUncachedAgreeAndLongAgentsAreNotCached() {
        CrawlerListClassifier small = CrawlerListClassifier.of(CrawlerList.bundled(), 100);
        for (String ua : List.of(GOOGLEBOT, CHROME, "curl/8", "x")) {
            assertThat(small.classify(ua, DEFAULT)).isEqualTo(small.classifyUncached(ua, DEFAULT));
        }
        long before = small.cachedCount();
        String longAgent = CHROME + " x".repeat(CrawlerListClassifier.MAX_CACHED_LENGTH);
        assertThat(small.classify(longAgent, DEFAULT).requestClass()).isEqualTo(RequestClass.BROWSER);
        assertThat(small.cachedCount()).isEqualTo(before);
        assertThat(small.findEntry(GOOGLEBOT).name()).isEqualTo("Googlebot");
        assertThat(small.findEntry(CHROME)).isNull();
        assertThat(small.findEntry(null)).isNull();
        assertThatThrownBy(() -> CrawlerListClassifier.of(CrawlerList.bundled(), -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aUserAgentIsCachedOnItsSecondSighting() {
        CrawlerListClassifier fresh = CrawlerListClassifier.of(CrawlerList.bundled(), 100);
        fresh.classify(CHROME, DEFAULT);
        assertThat(fresh.cachedCount()).isZero();
        fresh.classify(CHROME, DEFAULT);
        assertThat(fresh.cachedCount()).isEqualTo(1);
        assertThat(fresh.classify(CHROME, DEFAULT).requestClass()).isEqualTo(RequestClass.BROWSER);
        for (int i = 0; i < 1000; i++) {
            fresh.classify(CHROME + " unique/" + i, DEFAULT);
        }
        assertThat(fresh.cachedCount()).isLessThan(10); // a spray of one-off user agents is not cached
    }

    @Test
    void aUserAgentServedFromTheHotTableStillFollowsThePolicyAndIsComparedByContent() {
        CrawlerListClassifier fresh = CrawlerListClassifier.of(CrawlerList.bundled(), 100);
        for (int i = 0; i < 3; i++) { // seen, cached, then found in the cache and so remembered in front of it
            assertThat(fresh.classify(GOOGLEBOT, DEFAULT).requestClass()).isEqualTo(RequestClass.CRAWLER);
        }
        String sameText = new String(GOOGLEBOT.toCharArray());
        assertThat(fresh.classify(sameText, DEFAULT)).isEqualTo(fresh.classifyUncached(GOOGLEBOT, DEFAULT));
        assertThat(fresh.classify(sameText, new Policy.Classification(List.of("http-library"))).requestClass())
                .isEqualTo(RequestClass.BOT);
        assertThat(fresh.classify(CHROME, DEFAULT).requestClass()).isEqualTo(RequestClass.BROWSER);
    }

    @Test
    void everyEntryHasANameAndTheBundledListIsTagged() {
        for (CrawlerEntry entry : classifier.list().entries()) {
            assertThat(entry.name()).as("entry %d", entry.index()).isNotBlank();
            assertThat(entry.tags()).as("entry %d", entry.index()).isNotEmpty();
        }
        assertThat(classifier.list().source()).contains("bundled");
    }

    @Test
    void operatorListFromFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("list.json");
        Files.writeString(file, "[{\"pattern\":\"ExampleBot\\\\/\",\"tags\":[\"search-engine\"],"
                + "\"instances\":[\"ExampleBot/1.0\"]},{\"pattern\":\"^NoTag\"}]");
        CrawlerListClassifier fromFile = CrawlerListClassifier.fromFile(file);
        assertThat(fromFile.classify("Mozilla/5.0 ExampleBot/1.0", DEFAULT))
                .isEqualTo(new UserAgentMatch(RequestClass.CRAWLER, "ExampleBot", List.of("search-engine")));
        assertThat(fromFile.classify(GOOGLEBOT, DEFAULT).requestClass()).isEqualTo(RequestClass.BOT);
        UserAgentMatch untagged = fromFile.classify("NoTag 1", DEFAULT);
        assertThat(untagged.requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(untagged.crawlerName()).isEqualTo("^NoTag");
    }

    @Test
    void badListFilesAreRejectedWhole(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, "[{\"pattern\":\"ok\"},{\"pattern\":\"(unclosed\"}]");
        assertThatThrownBy(() -> CrawlerListClassifier.fromFile(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("entry 1: bad pattern '(unclosed'");
        Files.writeString(file, "[{\"url\":\"x\"}]");
        assertThatThrownBy(() -> CrawlerListClassifier.fromFile(file))
                .hasMessageContaining("entry 0: pattern is missing");
        Files.writeString(file, "[{\"pattern\":\"a\",\"tags\":\"seo\"}]");
        assertThatThrownBy(() -> CrawlerListClassifier.fromFile(file)).hasMessageContaining("tags must be an array");
        Files.writeString(file, "{}");
        assertThatThrownBy(() -> CrawlerListClassifier.fromFile(file)).hasMessageContaining("must be a JSON array");
        Files.writeString(file, "[{");
        assertThatThrownBy(() -> CrawlerListClassifier.fromFile(file)).hasMessageContaining("is not JSON");
        assertThatThrownBy(() -> CrawlerListClassifier.fromFile(dir.resolve("missing.json")))
                .isInstanceOf(UncheckedIOException.class);
    }
}

package io.sluice.crawl;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResponseCacheTest {
    private final MutableClock clock = new MutableClock();
    private final ResponseCache cache = new ResponseCache(clock, Duration.ofMinutes(5), List.of(
            new ResponseCache.TtlRule("/api/items/*", Duration.ofSeconds(30)),
            new ResponseCache.TtlRule("/live/**", Duration.ZERO),
            new ResponseCache.TtlRule("/api/**", Duration.ofHours(1))), 3);

    private static ResponseCache.CachedResponse ok(String body) {
        return new ResponseCache.CachedResponse(200, Map.of(), body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theFirstMatchingRuleGivesTheTtl() {
        assertThat(cache.ttlFor(URI.create("http://a.example/api/items/7"))).isEqualTo(Duration.ofSeconds(30));
        assertThat(cache.ttlFor(URI.create("http://a.example/api/items/7/reviews"))).as("* stays in one segment")
                .isEqualTo(Duration.ofHours(1));
        assertThat(cache.ttlFor(URI.create("http://a.example/live/scores/today"))).isZero();
        assertThat(cache.ttlFor(URI.create("http://a.example/about"))).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void aResponseIsFreshUntilExactlyItsTtl() {
        URI item = URI.create("http://a.example/api/items/7");
        cache.put(item, ok("seven"));
        clock.advanceMillis(29_999);
        assertThat(cache.get(item)).hasValueSatisfying(r -> assertThat(new String(r.body(), StandardCharsets.UTF_8))
                .isEqualTo("seven"));
        clock.advanceMillis(1);
        assertThat(cache.get(item)).isEmpty();
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(1);
    }

    @Test
    void zeroTtlAndNon200AreNeverCached() {
        cache.put(URI.create("http://a.example/live/now"), ok("now"));
        cache.put(URI.create("http://a.example/page"), new ResponseCache.CachedResponse(429, Map.of(), new byte[0]));
        assertThat(cache.size()).isZero();
    }

    @Test
    void theLeastRecentlyUsedEntryGoesFirst() {
        URI a = URI.create("http://a.example/a");
        URI b = URI.create("http://a.example/b");
        URI c = URI.create("http://a.example/c");
        cache.put(a, ok("a"));
        cache.put(b, ok("b"));
        cache.put(c, ok("c"));
        cache.get(a);
        cache.put(URI.create("http://a.example/d"), ok("d"));
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.get(b)).as("least recently used").isEmpty();
        assertThat(cache.get(a)).isPresent();
    }

    @Test
    void aSeededResponseKeepsItsOwnTtl() {
        URI live = URI.create("http://a.example/live/now");
        cache.seed(live, ok("warm"), Duration.ofSeconds(10));
        assertThat(cache.get(live)).isPresent();
        clock.advanceMillis(10_000);
        assertThat(cache.get(live)).isEmpty();
    }
}

package io.sluice.engine.classify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The fast matcher must give exactly the naive scan's answer. */
class CrawlerMatcherTest {

    private static CrawlerList list;
    private static CrawlerMatcher fast;
    private static NaiveCrawlerScan naive;

    @BeforeAll
    static void load() {
        list = CrawlerList.bundled();
        fast = new CrawlerMatcher(list.patterns());
        naive = new NaiveCrawlerScan(list.patterns());
    }

    @Test
    void nearlyEveryPatternIsPrefiltered() {
        assertThat(list.size()).isGreaterThan(1000);
        assertThat(fast.unfilteredCount()).isLessThan(10);
    }

    @Test
    void everyListedInstanceMatchesLikeTheNaiveScan() {
        int instances = 0;
        for (CrawlerEntry entry : list.entries()) {
            for (String instance : entry.instances()) {
                int expected = naive.firstMatch(instance);
                assertThat(fast.firstMatch(instance)).as("%s (entry %d)", instance, entry.index()).isEqualTo(expected);
                assertThat(expected).as("instance of entry %d is matched by some entry", entry.index())
                        .isNotNegative();
                instances++;
            }
        }
        assertThat(instances).isGreaterThan(2000); // 2,118 in list 1.60.0
    }

    /** Seeded fuzz: mutated instances, splices of instances, case flips, random text. */
    @Test
    void fuzzAgreesWithNaiveScan() {
        Random random = new Random(1122L);
        List<String> pool = new ArrayList<>();
        list.entries().forEach(e -> pool.addAll(e.instances()));
        int matched = 0;
        for (int i = 0; i < 6_000; i++) {
            String text = mutate(pool, random);
            int expected = naive.firstMatch(text);
            assertThat(fast.firstMatch(text)).as("'%s'", text).isEqualTo(expected);
            if (expected >= 0) {
                matched++;
            }
        }
        assertThat(matched).isBetween(600, 5_900); // both outcomes are exercised
    }

    @Test
    void handlesPatternsItCannotAnalyse() {
        List<Pattern> patterns = List.of(Pattern.compile("\\x41bc"), Pattern.compile("(?i)zeta"),
                Pattern.compile("[wW]get"), Pattern.compile("a|b+c"), Pattern.compile("^$x?"));
        CrawlerMatcher small = new CrawlerMatcher(patterns);
        NaiveCrawlerScan reference = new NaiveCrawlerScan(patterns);
        for (String text : List.of("Abc", "ZETA", "Wget/1", "xyz", "bbc", "", "WGET", "zEtA Abc")) {
            assertThat(small.firstMatch(text)).as(text).isEqualTo(reference.firstMatch(text));
        }
    }

    private static String mutate(List<String> pool, Random random) {
        String base = pool.get(random.nextInt(pool.size()));
        switch (random.nextInt(5)) {
            case 0: {
                StringBuilder s = new StringBuilder(base);
                for (int k = 0; k < 1 + random.nextInt(4) && s.length() > 0; k++) {
                    s.setCharAt(random.nextInt(s.length()), (char) (32 + random.nextInt(95)));
                }
                return s.toString();
            }
            case 1: {
                String other = pool.get(random.nextInt(pool.size()));
                int cut = random.nextInt(base.length() + 1);
                int from = random.nextInt(other.length() + 1);
                return base.substring(0, cut) + other.substring(from);
            }
            case 2: {
                StringBuilder s = new StringBuilder();
                for (char c : base.toCharArray()) {
                    s.append(random.nextInt(3) == 0 ? Character.toUpperCase(c) : random.nextInt(3) == 0
                            ? Character.toLowerCase(c) : c);
                }
                return s.toString();
            }
            case 3: {
                StringBuilder s = new StringBuilder();
                int length = random.nextInt(220);
                for (int k = 0; k < length; k++) {
                    s.append((char) (32 + random.nextInt(95)));
                }
                return s.toString();
            }
            default: {
                int a = random.nextInt(base.length() + 1);
                int b = random.nextInt(base.length() + 1);
                return base.substring(Math.min(a, b), Math.max(a, b)) + "\u00e9\u4e2d";
            }
        }
    }
}

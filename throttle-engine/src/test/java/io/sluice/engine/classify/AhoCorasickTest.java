package io.sluice.engine.classify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class AhoCorasickTest {

    @Test
    void findsOverlappingAndNestedLiteralsIgnoringAsciiCase() {
        AhoCorasick ac = new AhoCorasick(List.of("he", "she", "his", "hers", "\u00e9t\u00e9", "bot/"));
        assertThat(found(ac, "uSHErs")).containsExactly(0, 1, 3);
        assertThat(found(ac, "summer \u00e9t\u00e9 Bot/1")).containsExactly(4, 5);
        assertThat(found(ac, "nothing")).isEmpty();
    }

    /** Random literals against String.contains, with enough states to need the wide (int) table too. */
    @Test
    void agreesWithContainsForNarrowAndWideTables() {
        for (int literalCount : new int[] {50, 8_000}) {
            Random random = new Random(literalCount);
            List<String> literals = new ArrayList<>();
            for (int i = 0; i < literalCount; i++) {
                int length = literalCount > 100 ? 6 + random.nextInt(10) : 1 + random.nextInt(4);
                literals.add(randomText(random, length, "abcdefg/."));
            }
            AhoCorasick ac = new AhoCorasick(literals);
            if (literalCount > 100) {
                assertThat(ac.stateCount()).isGreaterThan(0x7FFF);
            }
            for (int probe = 0; probe < 300; probe++) {
                String text = randomText(random, random.nextInt(60), "abcdefgABCDEFG/.x\u00e9");
                String lower = text.toLowerCase(Locale.ROOT);
                TreeSet<Integer> expected = new TreeSet<>();
                for (int i = 0; i < literals.size(); i++) {
                    if (lower.contains(literals.get(i))) {
                        expected.add(i);
                    }
                }
                assertThat(found(ac, text)).as(text).isEqualTo(expected);
            }
        }
    }

    private static TreeSet<Integer> found(AhoCorasick ac, String text) {
        TreeSet<Integer> ids = new TreeSet<>();
        ac.scan(text, ids::add);
        return ids;
    }

    private static String randomText(Random random, int length, String alphabet) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }
}

package io.sluice.engine.classify;

import java.util.List;
import java.util.regex.Pattern;

/** The reference: every pattern, in list order, first found wins. Slow on purpose. */
final class NaiveCrawlerScan {

    private final List<Pattern> patterns;

    NaiveCrawlerScan(List<Pattern> patterns) {
        this.patterns = patterns;
    }

    int firstMatch(String userAgent) {
        for (int i = 0; i < patterns.size(); i++) {
            if (patterns.get(i).matcher(userAgent).find()) {
                return i;
            }
        }
        return -1;
    }
}

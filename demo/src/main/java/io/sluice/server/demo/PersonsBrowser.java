package io.sluice.server.demo;

import io.sluice.engine.check.ProofOfWork;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a person's browser does with the browser check's interstitial, for the demo's people (Java clients, not
 * browsers): its script's work, done natively. The interstitial carries its challenge in data attributes; the answer
 * is the smallest nonce that meets the difficulty, sent to the pass endpoint, which sets the pass cookie (the
 * client's cookie store keeps it) and redirects to the page asked for. The demo's site copier does not do this: it
 * runs no script, as copiers don't.
 */
final class PersonsBrowser {
    private static final Pattern CHECK = Pattern.compile("data-token=\"([^\"]+)\" data-bits=\"(\\d+)\" "
            + "data-pass=\"([^\"]+)\" data-c=\"([^\"]+)\" data-r=\"([^\"]*)\"");
    /** More than the policy allows (24 bits): a page asking more is not answered. */
    private static final int MAX_BITS = 24;

    private PersonsBrowser() {
    }

    /** The pass endpoint's path and query that answers the interstitial {@code html}, or null if it is not one. */
    static String answer(String html) {
        Matcher check = CHECK.matcher(html);
        if (!check.find()) {
            return null;
        }
        String token = check.group(1);
        int bits = Integer.parseInt(check.group(2));
        if (bits > MAX_BITS) {
            return null;
        }
        for (long nonce = 0; ; nonce++) {
            if (ProofOfWork.meets(token, Long.toString(nonce), bits)) {
                return check.group(3) + "?c=" + check.group(4) + "&n=" + nonce + "&r=" + check.group(5);
            }
        }
    }
}

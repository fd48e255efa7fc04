package io.sluice.engine.classify;

/**
 * Recognises the user agent of a person's browser: {@code Mozilla/5.0 (...)} followed by an engine or
 * product token of a major browser (Chrome, Firefox, Safari, Edge, Opera, Internet Explorer), or
 * Presto-era {@code Opera/}. Only consulted when no crawler-list entry matched: crawlers that disguise
 * themselves as browsers are caught by the list first.
 */
final class BrowserSignature {

    private static final String[] TOKENS = {"Chrome/", "Firefox/", "Safari/", "Edg/", "Edge/", "OPR/", "Opera",
        "Trident/", "CriOS/", "FxiOS/"};

    private BrowserSignature() {
    }

    static boolean isBrowser(String userAgent) {
        if (userAgent.startsWith("Opera/")) {
            return true;
        }
        if (!userAgent.startsWith("Mozilla/5.0 (")) {
            return false;
        }
        for (String token : TOKENS) {
            if (userAgent.indexOf(token, 13) >= 0) {
                return true;
            }
        }
        return false;
    }
}

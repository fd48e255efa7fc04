package io.sluice.server.front;

import io.sluice.engine.check.ProofOfWork;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The browser check's interstitial (issue 46): a small page (under 20 KB, no external resource) that says what
 * is happening, solves the proof-of-work in an inline script ({@code interstitial.js} beside this class: its own
 * SHA-256, since {@code crypto.subtle} is missing on plain-http sites) and goes on to the pass path with the
 * answer, which sends the browser back to the page it asked for. Without JavaScript, a {@code <noscript>} meta
 * refresh brings the challenge back with no answer after the no-JavaScript wait, when that path is on.
 *
 * <p>The script is the same for every challenge: what varies (token, difficulty, paths) is in data attributes,
 * HTML-escaped, so nothing a client chose is ever inside a script, and the script has one hash for a
 * {@link #CONTENT_SECURITY_POLICY}. The token and return path are percent-encoded once, here, for both the
 * script's and the refresh's URL.
 */
public final class Interstitial {

    private static final String SCRIPT = script();
    private static final String STYLE = "body{font-family:sans-serif;max-width:40em;margin:4em auto;padding:0 1em;"
            + "color:#222}@media(prefers-color-scheme:dark){body{background:#111;color:#ddd}a{color:#8bf}}";

    /**
     * The {@code Content-Security-Policy} to send with the page: its own script and style, nothing else loaded,
     * no form, no framing.
     */
    public static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'sha256-" + sha256(SCRIPT)
            + "'; style-src 'sha256-" + sha256(STYLE) + "'; base-uri 'none'; form-action 'none'; "
            + "frame-ancestors 'none'";

    private Interstitial() {
    }

    /**
     * The page for a challenge.
     *
     * @param passPath           where the answer goes ({@code /.sluice/pass}): {@code ?c=TOKEN&n=NONCE&r=RETURN}
     * @param noScriptWaitMillis how long the no-JavaScript path waits; negative when it is off (the page then says
     *                           that JavaScript is needed)
     * @param infoUrl            a page that explains the check, linked from it; null for none
     */
    public static String page(ProofOfWork.Challenge challenge, String passPath, long noScriptWaitMillis,
            String infoUrl) {
        String token = percentEncode(challenge.token());
        String back = percentEncode(challenge.returnPath());
        StringBuilder page = new StringBuilder(4096 + 2 * back.length() + SCRIPT.length());
        page.append("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">")
                .append("<meta name=\"robots\" content=\"noindex,nofollow\">")
                .append("<title>Checking your browser\u2026</title>");
        if (noScriptWaitMillis >= 0) {
            String refresh = refreshSeconds(noScriptWaitMillis) + ";url=" + passPath + "?c=" + token + "&r=" + back;
            page.append("<noscript><meta http-equiv=\"refresh\" content=\"").append(escape(refresh))
                    .append("\"></noscript>");
        }
        page.append("<style>").append(STYLE).append("</style></head><body>")
                .append("<main id=\"sluice-check\" data-token=\"").append(escape(challenge.token()))
                .append("\" data-bits=\"").append(challenge.difficultyBits())
                .append("\" data-pass=\"").append(escape(passPath))
                .append("\" data-c=\"").append(escape(token))
                .append("\" data-r=\"").append(escape(back)).append("\">")
                .append("<h1>Checking that you are a browser\u2026</h1>")
                .append("<p>This site is getting more automated traffic than it can serve. Your browser is doing a ")
                .append("small calculation to show that it is one; you will be on your way in a moment.</p>")
                .append("<p id=\"sluice-status\" aria-live=\"polite\"></p><noscript><p>");
        if (noScriptWaitMillis >= 0) {
            page.append("JavaScript is off: you will be sent on in ").append(refreshSeconds(noScriptWaitMillis))
                    .append(" seconds.");
        } else {
            page.append("This check needs JavaScript: please turn it on for this site and reload the page.");
        }
        page.append("</p></noscript>");
        if (infoUrl != null && !infoUrl.isBlank()) {
            page.append("<p><small><a href=\"").append(escape(infoUrl)).append("\">Why am I seeing this?</a>")
                    .append("</small></p>");
        }
        return page.append("</main><script>").append(SCRIPT).append("</script></body></html>").toString();
    }

    /**
     * Seconds before the no-JavaScript refresh: the wait rounded up, plus one, so that a node whose clock is a
     * little behind the one that issued the challenge does not find the answer early and start the wait again.
     */
    static long refreshSeconds(long noScriptWaitMillis) {
        return (noScriptWaitMillis + 999) / 1000 + 1;
    }

    private static String escape(String text) {
        return RefusalResponder.htmlEscape(text);
    }

    /** Percent-encodes all but RFC 3986's unreserved characters (UTF-8): safe in a query value and an attribute. */
    static String percentEncode(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
                    || c == '.' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return out.toString();
    }

    private static String script() {
        try (InputStream in = Interstitial.class.getResourceAsStream("interstitial.js")) {
            if (in == null) {
                throw new IllegalStateException("interstitial.js is missing from the server's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256(String text) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}

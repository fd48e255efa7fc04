package io.sluice.benchmarks.fleet;

import io.sluice.engine.check.ProofOfWork;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The browser check's challenge as the interstitial carries it ({@code <main id="sluice-check" data-token ...>}),
 * solved as its script solves it but in native code: the smallest decimal nonce whose SHA-256 over
 * {@code token ":" nonce} starts with {@code bits} zero bits, found by trying 0, 1, 2, ... (so the hashes spent are
 * the nonce plus one), and confirmed with {@link ProofOfWork#meets}.
 *
 * @param token    what is hashed
 * @param bits     the difficulty
 * @param passPath where the answer goes ({@code /.sluice/pass})
 * @param c        the token as the page percent-encoded it for the answer's URL
 * @param r        the page to return to, percent-encoded
 */
record Challenge(String token, int bits, String passPath, String c, String r) {
    private static final Pattern MARK = Pattern.compile("<main id=\"sluice-check\"([^>]*)>");
    private static final Pattern ATTRIBUTE = Pattern.compile("data-([a-z]+)=\"([^\"]*)\"");

    /** A solved challenge: the nonce, and the hashes it took. */
    record Solution(long nonce, long hashes) {
    }

    /** The challenge on an interstitial page, or null when {@code html} is not one. */
    static Challenge of(String html) {
        Matcher mark = MARK.matcher(html);
        if (!mark.find()) {
            return null;
        }
        Map<String, String> data = new HashMap<>();
        Matcher attribute = ATTRIBUTE.matcher(mark.group(1));
        while (attribute.find()) {
            data.put(attribute.group(1), unescape(attribute.group(2)));
        }
        return new Challenge(data.get("token"), Integer.parseInt(data.get("bits")), data.get("pass"), data.get("c"),
                data.get("r"));
    }

    Solution solve() {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] prefix = (token + ":").getBytes(StandardCharsets.US_ASCII);
        byte[] digits = new byte[20];
        for (long nonce = 0; ; nonce++) {
            int start = digits.length;
            long rest = nonce;
            do {
                digits[--start] = (byte) ('0' + rest % 10);
                rest /= 10;
            } while (rest > 0);
            sha256.update(prefix);
            sha256.update(digits, start, digits.length - start);
            if (leadingZeros(sha256.digest()) >= bits) {
                if (!ProofOfWork.meets(token, Long.toString(nonce), bits)) {
                    throw new IllegalStateException("the native solver and ProofOfWork.meets disagree");
                }
                return new Solution(nonce, nonce + 1);
            }
        }
    }

    /** Where the answer goes: the pass path with the token, the nonce and the page to return to. */
    String answerPath(long nonce) {
        return passPath + "?c=" + c + "&n=" + nonce + "&r=" + r;
    }

    private static int leadingZeros(byte[] hash) {
        int zeros = 0;
        for (byte b : hash) {
            if (b != 0) {
                return zeros + Integer.numberOfLeadingZeros(b & 0xFF) - 24;
            }
            zeros += 8;
        }
        return zeros;
    }

    private static String unescape(String html) {
        return html.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&");
    }
}

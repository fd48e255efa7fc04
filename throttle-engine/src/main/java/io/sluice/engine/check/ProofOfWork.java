package io.sluice.engine.check;

import io.sluice.engine.net.IpAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Objects;
import javax.crypto.Mac;

/**
 * Issues and checks the browser check's proof-of-work challenges. A challenge is stateless: its token carries
 * {@code version(1) keyId(4) random(12) issuedAtMillis(8) difficultyBits(1)} and a tag, HMAC-SHA256 (cut to 16
 * bytes) over those bytes plus the client's network (IPv4 /24, IPv6 /64), user agent and the page to return to,
 * all unpadded base64url (56 characters). The browser finds a nonce (a decimal integer) such that
 * SHA-256(token ":" nonce) starts with {@code difficultyBits} zero bits ({@link #meets}); checking the answer is
 * one HMAC and one SHA-256. An answer brought back for another page, from another network or user agent, or
 * with its difficulty lowered does not match the tag: {@link Why#FORGED}. A token is good for
 * {@value #TOKEN_LIFETIME_MILLIS} ms.
 *
 * <p>Nothing is stored, so nothing stops the same answer from being brought back again within the token's
 * lifetime, from the same network and user agent (Anubis keeps a store of spent challenges; we do not need
 * one). The pass id of a solved challenge is derived from the token's random bytes alone, so every replay of one
 * answer mints the same pass id: the same identity, whose requests share one hit stack. Replaying buys a copy
 * of a pass, never a second person's budget.
 *
 * <p>Thread-safe; signs with the ring of the {@link BrowserPasses} it is made with, so a rotation swaps both.
 */
public final class ProofOfWork {

    /** How long a challenge can be answered, from when it was issued. */
    public static final long TOKEN_LIFETIME_MILLIS = 10 * 60 * 1000L;
    /** How far in the future (another node's clock) a token's issue time may be. */
    static final long CLOCK_SKEW_MILLIS = 60 * 1000L;
    /** The highest difficulty {@link #issue} accepts: far beyond any browser's patience already. */
    public static final int MAX_DIFFICULTY_BITS = 64;
    /** The longest page to return to: longer ones become {@code /}. */
    public static final int MAX_RETURN_PATH = 2048;
    /** The longest nonce, in decimal digits. */
    public static final int MAX_NONCE_DIGITS = 20;

    private static final byte VERSION = 1;
    private static final int RANDOM_BYTES = 12;
    private static final int SIGNED = 26; // version, key id, random, issued at, difficulty
    private static final int TOKEN_BYTES = SIGNED + Signer.TAG_LENGTH;
    private static final int TOKEN_CHARS = (TOKEN_BYTES * 4 + 2) / 3;

    private final BrowserPasses passes;
    private final SecureRandom random;

    public ProofOfWork(BrowserPasses passes) {
        this(passes, new SecureRandom());
    }

    /** With the source of the tokens' random bytes given (tests). */
    public ProofOfWork(BrowserPasses passes, SecureRandom random) {
        this.passes = Objects.requireNonNull(passes, "passes");
        this.random = Objects.requireNonNull(random, "random");
    }

    /**
     * A challenge.
     *
     * @param token          what the browser hashes and brings back (unpadded base64url)
     * @param difficultyBits how many leading zero bits its hash must have
     * @param returnPath     the page to go back to once solved (a same-site path)
     * @param issuedAtMillis when it was issued
     */
    public record Challenge(String token, int difficultyBits, String returnPath, long issuedAtMillis) {
    }

    /** What checking an answer gives. */
    public sealed interface Answer permits Solved, Rejected {
    }

    /**
     * A good answer.
     *
     * @param passId the identity of the pass to mint (the same for every replay of this answer)
     * @param weak   earned by the no-JavaScript path
     */
    public record Solved(String passId, boolean weak) implements Answer {
    }

    /** A refused answer, and why. */
    public record Rejected(Why why) implements Answer {
    }

    /** Why an answer is refused. */
    public enum Why {
        /** Not a token, nonce or path at all (wrong length, alphabet, version). */
        MALFORMED,
        /** A token we did not issue for this network, user agent and page, or signed by an unknown or retired key. */
        FORGED,
        /** Issued more than ten minutes ago (or too far in the future). */
        EXPIRED,
        /** The no-JavaScript path, before its wait is over. */
        TOO_EARLY,
        /** The hash does not have the leading zeros, or no nonce where the no-JavaScript path is off. */
        WRONG_ANSWER
    }

    /**
     * A new challenge for this client, signed with the current key.
     *
     * @param returnPath where to go once solved: kept when it is a same-site absolute path ({@code /} and no
     *                   second {@code /} or backslash right after it, no control or non-ASCII character, at most
     *                   {@value #MAX_RETURN_PATH} characters), else {@code /}, so no answer redirects off-site
     * @throws IllegalArgumentException when the difficulty is outside 0 to {@value #MAX_DIFFICULTY_BITS}
     */
    public Challenge issue(IpAddress address, String userAgent, String returnPath, int difficultyBits,
            long nowMillis) {
        Objects.requireNonNull(address, "address");
        if (difficultyBits < 0 || difficultyBits > MAX_DIFFICULTY_BITS) {
            throw new IllegalArgumentException("a difficulty is 0 to " + MAX_DIFFICULTY_BITS + " bits, not "
                    + difficultyBits);
        }
        String path = safeReturnPath(returnPath);
        byte[] token = new byte[TOKEN_BYTES];
        Signer.Local local = passes.signer().local();
        token[0] = VERSION;
        Signer.writeInt(token, 1, local.currentId());
        byte[] nonce = new byte[RANDOM_BYTES];
        random.nextBytes(nonce);
        System.arraycopy(nonce, 0, token, 5, RANDOM_BYTES);
        Signer.writeLong(token, 17, nowMillis);
        token[25] = (byte) difficultyBits;
        Mac mac = local.currentMac();
        bind(local, mac, token, address, userAgent, path);
        local.sign(mac, token, SIGNED);
        return new Challenge(Base64Url.encode(token, 0, TOKEN_BYTES), difficultyBits, path, nowMillis);
    }

    /**
     * Checks an answer.
     *
     * @param nonce              the browser's answer; null is the no-JavaScript path: solved (weak) only when
     *                           {@code noScriptWaitMillis >= 0} and {@code now >= issued + noScriptWaitMillis}
     * @param returnPath         the page the answer came back with: the challenge's, or the answer is forged
     * @param noScriptWaitMillis how long the no-JavaScript path waits; negative when that path is off
     */
    public Answer check(String token, String nonce, String returnPath, IpAddress address, String userAgent,
            long nowMillis, long noScriptWaitMillis) {
        if (token == null || token.length() != TOKEN_CHARS || address == null || returnPath == null
                || returnPath.length() > MAX_RETURN_PATH || nonce != null && !decimal(nonce)) {
            return new Rejected(Why.MALFORMED);
        }
        Signer.Local local = passes.signer().local();
        byte[] value = local.buffer;
        if (Base64Url.decode(token, value) != TOKEN_BYTES || value[0] != VERSION) {
            return new Rejected(Why.MALFORMED);
        }
        Mac mac = local.mac(Signer.readInt(value, 1), nowMillis);
        if (mac == null) {
            return new Rejected(Why.FORGED);
        }
        bind(local, mac, value, address, userAgent, returnPath);
        if (!local.verify(mac, value, SIGNED)) {
            return new Rejected(Why.FORGED);
        }
        long issuedAt = Signer.readLong(value, 17);
        if (nowMillis - issuedAt >= TOKEN_LIFETIME_MILLIS || issuedAt - nowMillis > CLOCK_SKEW_MILLIS) {
            return new Rejected(Why.EXPIRED);
        }
        boolean weak = nonce == null;
        if (weak) {
            if (noScriptWaitMillis < 0) {
                return new Rejected(Why.WRONG_ANSWER);
            }
            if (nowMillis - issuedAt < noScriptWaitMillis) {
                return new Rejected(Why.TOO_EARLY);
            }
        } else if (!meets(local.sha256, token, nonce, value[25] & 0xFF)) {
            return new Rejected(Why.WRONG_ANSWER);
        }
        // The identity is the token's random bytes: every replay of this answer is the same pass (class comment).
        return new Solved(Base64Url.encode(value, 5, RANDOM_BYTES), weak);
    }

    /**
     * True when SHA-256(UTF-8(token + ":" + nonce)) starts with at least {@code difficultyBits} zero bits; false
     * for a null token or nonce.
     */
    public static boolean meets(String token, String nonce, int difficultyBits) {
        if (token == null || nonce == null) {
            return false;
        }
        return meets(PassKey.sha256(), token, nonce, difficultyBits);
    }

    private static boolean meets(MessageDigest sha256, String token, String nonce, int difficultyBits) {
        if (difficultyBits <= 0) {
            return true;
        }
        if (difficultyBits > 256) {
            return false;
        }
        sha256.reset();
        byte[] hash = sha256.digest((token + ":" + nonce).getBytes(StandardCharsets.UTF_8));
        int whole = difficultyBits >>> 3;
        for (int i = 0; i < whole; i++) {
            if (hash[i] != 0) {
                return false;
            }
        }
        int rest = difficultyBits & 7;
        return rest == 0 || (hash[whole] & 0xFF) >>> (8 - rest) == 0;
    }

    private static void bind(Signer.Local local, Mac mac, byte[] token, IpAddress address, String userAgent,
            String returnPath) {
        mac.update(Signer.CHALLENGE);
        mac.update(token, 0, SIGNED);
        local.network(mac, address);
        local.text(mac, BrowserPasses.userAgent(userAgent));
        local.text(mac, returnPath);
    }

    /**
     * The page to return to: {@code path} when it is a same-site absolute path, else {@code /}. A path that a
     * browser could read as another site ({@code //host}, {@code /\host}, a tab or newline it strips) or
     * another scheme is not one.
     */
    public static String safeReturnPath(String path) {
        if (path == null || path.isEmpty() || path.length() > MAX_RETURN_PATH || path.charAt(0) != '/') {
            return "/";
        }
        if (path.length() > 1 && (path.charAt(1) == '/' || path.charAt(1) == '\\')) {
            return "/";
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c <= ' ' || c >= 0x7F || c == '\\') {
                return "/";
            }
        }
        return path;
    }

    private static boolean decimal(String nonce) {
        int length = nonce.length();
        if (length == 0 || length > MAX_NONCE_DIGITS) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = nonce.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}

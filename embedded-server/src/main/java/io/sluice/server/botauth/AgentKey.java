package io.sluice.server.botauth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * One Ed25519 public key of a key directory, named by its JWK SHA-256 thumbprint (RFC 7638, RFC 8037 appendix A.3):
 * the {@code keyid} a web-bot-auth signature names it by. The point is decoded and checked once, when the directory
 * is read, so a verification costs the signature check alone.
 *
 * <p>Bouncy Castle's Ed25519 rather than the JDK's: on the JDK 17 the server runs on, its verification costs several
 * times more CPU (measured ~0.9 ms against ~0.25 ms a check on a loaded machine), and it runs on the request thread.
 * The library is already the server's (its TLS certificates).
 *
 * @param thumbprint the base64url SHA-256 thumbprint
 * @param x          the 32-byte public key as published ({@code x})
 */
record AgentKey(String thumbprint, String x, Ed25519.PublicPoint point) {

    /** The key of JWK member {@code x} (base64url, 32 bytes). */
    static AgentKey ofJwk(String x) {
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(x);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("x is not base64url");
        }
        if (raw.length != Ed25519.PUBLIC_KEY_SIZE) {
            throw new IllegalArgumentException("x is not an Ed25519 public key");
        }
        Ed25519.PublicPoint point = Ed25519.validatePublicKeyFullExport(raw, 0);
        if (point == null) {
            throw new IllegalArgumentException("x is not a point of Ed25519");
        }
        String canonical = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        return new AgentKey(thumbprint(canonical), canonical, point);
    }

    /** The RFC 7638 thumbprint of an Ed25519 JWK with public key {@code x}: its required members, sorted. */
    static String thumbprint(String x) {
        String json = "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"" + x + "\"}";
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(json.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** Whether {@code signature} is this key's over {@code message}. */
    boolean verifies(byte[] signature, byte[] message) {
        return signature.length == Ed25519.SIGNATURE_SIZE
                && Ed25519.verify(signature, 0, point, message, 0, message.length);
    }

    /** The key as a JWK, for a published directory. */
    String jwk() {
        return "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"" + thumbprint + "\",\"x\":\"" + x
                + "\",\"use\":\"sig\"}";
    }
}

package io.sluice.engine.check;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * A secret that signs browser passes and proof-of-work challenges: 32 random bytes. The record copies the
 * bytes in and out, compares by content, and never prints them ({@link #toString()} shows the key's id).
 *
 * @param secret the 32 bytes of the key
 */
public record PassKey(byte[] secret) {

    /** How many bytes a key has. */
    public static final int LENGTH = 32;

    /**
     * @throws IllegalArgumentException when the secret does not have {@value #LENGTH} bytes
     */
    public PassKey {
        if (secret == null || secret.length != LENGTH) {
            throw new IllegalArgumentException("a pass key has " + LENGTH + " bytes, not "
                    + (secret == null ? "none" : secret.length));
        }
        secret = secret.clone();
    }

    /** A new key drawn from {@code random}. */
    public static PassKey random(SecureRandom random) {
        byte[] bytes = new byte[LENGTH];
        random.nextBytes(bytes);
        return new PassKey(bytes);
    }

    /** A copy of the secret. */
    @Override
    public byte[] secret() {
        return secret.clone();
    }

    /**
     * The key's id: the first 4 bytes of SHA-256(secret), big-endian. Signed values carry it so that a reader
     * picks the key they were signed with (current or previous) without trying both.
     */
    public int id() {
        byte[] digest = sha256().digest(secret);
        return (digest[0] & 0xFF) << 24 | (digest[1] & 0xFF) << 16 | (digest[2] & 0xFF) << 8 | digest[3] & 0xFF;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PassKey that && MessageDigest.isEqual(that.secret, secret);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(secret);
    }

    @Override
    public String toString() {
        return String.format("PassKey[id=%08x]", id());
    }
}

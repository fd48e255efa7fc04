package io.sluice.engine.check;

import io.sluice.engine.net.IpAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HMAC-SHA256 machinery the passes and the challenges share: the live key ring (swapped whole on a rotation)
 * and, per thread, a {@link Mac} for each of its keys. A {@code Mac} is not thread-safe and {@code Mac.init}
 * costs about as much as a short HMAC, so each thread keeps its own, initialized once per ring: a request
 * thread signs and checks without allocating a Mac or taking a lock. A thread that finds a newer ring than its
 * own builds its Macs again; the ring is read once per call, so a call never mixes two rings.
 *
 * <p>What is signed is a purpose byte (a pass and a challenge never check as each other), the value's own bytes,
 * then what it is bound to: the client's network, its user agent, and for a challenge the page to return to.
 * Texts are length-prefixed, so no two different bindings feed the Mac the same bytes. Tags are cut to
 * {@value #TAG_LENGTH} bytes (128 bits: forging one is guessing it) and compared in constant time.
 */
final class Signer {

    static final int TAG_LENGTH = 16;
    static final byte PASS = 'P';
    static final byte CHALLENGE = 'C';

    private volatile Keys keys;
    private final ThreadLocal<Local> locals = ThreadLocal.withInitial(Local::new);

    Signer(PassKeyRing ring) {
        ring(ring);
    }

    void ring(PassKeyRing ring) {
        keys = new Keys(Objects.requireNonNull(ring, "keys"));
    }

    PassKeyRing ring() {
        return keys.ring;
    }

    /** This thread's tools, their Macs keyed with the live ring. */
    Local local() {
        Local local = locals.get();
        Keys live = keys;
        if (local.keys != live) {
            local.use(live);
        }
        return local;
    }

    /** A ring with what checking needs worked out once: the keys' ids and specs. */
    private static final class Keys {
        final PassKeyRing ring;
        final int currentId;
        final int previousId;
        final SecretKeySpec current;
        final SecretKeySpec previous;

        Keys(PassKeyRing ring) {
            this.ring = ring;
            this.currentId = ring.current().id();
            this.current = new SecretKeySpec(ring.current().secret(), "HmacSHA256");
            this.previousId = ring.previous() == null ? 0 : ring.previous().id();
            this.previous = ring.previous() == null ? null : new SecretKeySpec(ring.previous().secret(), "HmacSHA256");
        }
    }

    /** One thread's Macs, digest and buffers. Used by that thread only, one call at a time. */
    static final class Local {
        /** Room for any decoded cookie or token: both readers bound their input far below this. */
        final byte[] buffer = new byte[128];
        final MessageDigest sha256 = PassKey.sha256();
        private final byte[] tag = new byte[32];
        private final byte[] scratch = new byte[9];
        private final Mac current = newMac();
        private final Mac previous = newMac();
        private Keys keys;

        private void use(Keys live) {
            try {
                current.init(live.current);
                if (live.previous != null) {
                    previous.init(live.previous);
                }
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 takes any key", e);
            }
            keys = live;
        }

        int currentId() {
            return keys.currentId;
        }

        /** The current key's Mac, ready for a new value. */
        Mac currentMac() {
            current.reset();
            return current;
        }

        /** The Mac of the accepted key with this id, ready for a new value; null when no accepted key has it. */
        Mac mac(int keyId, long nowMillis) {
            if (keyId == keys.currentId) {
                return currentMac();
            }
            if (keys.previous != null && keyId == keys.previousId && keys.ring.previousAccepted(nowMillis)) {
                previous.reset();
                return previous;
            }
            return null;
        }

        /** Feeds the Mac the network a value is bound to: an IPv4 /24 or an IPv6 /64. */
        void network(Mac mac, IpAddress address) {
            if (address.isIpv4()) {
                long bits = address.low();
                scratch[0] = 4;
                scratch[1] = (byte) (bits >>> 24);
                scratch[2] = (byte) (bits >>> 16);
                scratch[3] = (byte) (bits >>> 8);
                mac.update(scratch, 0, 4);
            } else {
                long bits = address.high();
                scratch[0] = 6;
                for (int i = 0; i < 8; i++) {
                    scratch[1 + i] = (byte) (bits >>> (56 - 8 * i));
                }
                mac.update(scratch, 0, 9);
            }
        }

        /** Feeds the Mac a text, length-prefixed. */
        void text(Mac mac, String text) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            int length = bytes.length;
            scratch[0] = (byte) (length >>> 24);
            scratch[1] = (byte) (length >>> 16);
            scratch[2] = (byte) (length >>> 8);
            scratch[3] = (byte) length;
            mac.update(scratch, 0, 4);
            mac.update(bytes);
        }

        /** Finishes the Mac and writes the cut tag at {@code value[offset]}. */
        void sign(Mac mac, byte[] value, int offset) {
            finish(mac);
            System.arraycopy(tag, 0, value, offset, TAG_LENGTH);
        }

        /** Finishes the Mac and tells whether the cut tag is the one at {@code value[offset]} (constant time). */
        boolean verify(Mac mac, byte[] value, int offset) {
            finish(mac);
            int difference = 0;
            for (int i = 0; i < TAG_LENGTH; i++) {
                difference |= tag[i] ^ value[offset + i];
            }
            return difference == 0;
        }

        private void finish(Mac mac) {
            try {
                mac.doFinal(tag, 0);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("the tag buffer holds a SHA-256", e);
            }
        }

        private static Mac newMac() {
            try {
                return Mac.getInstance("HmacSHA256");
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every Java platform has HmacSHA256", e);
            }
        }
    }

    static void writeInt(byte[] out, int offset, int value) {
        out[offset] = (byte) (value >>> 24);
        out[offset + 1] = (byte) (value >>> 16);
        out[offset + 2] = (byte) (value >>> 8);
        out[offset + 3] = (byte) value;
    }

    static int readInt(byte[] in, int offset) {
        return (in[offset] & 0xFF) << 24 | (in[offset + 1] & 0xFF) << 16 | (in[offset + 2] & 0xFF) << 8
                | in[offset + 3] & 0xFF;
    }

    static void writeLong(byte[] out, int offset, long value) {
        for (int i = 7; i >= 0; i--) {
            out[offset + i] = (byte) value;
            value >>>= 8;
        }
    }

    static long readLong(byte[] in, int offset) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = value << 8 | in[offset + i] & 0xFF;
        }
        return value;
    }
}

package io.sluice.engine.check;

import java.util.Arrays;
import java.util.Base64;

/**
 * Unpadded base64url (RFC 4648 section 5), decoded strictly and without allocating: a character outside the
 * alphabet, an impossible length, or unused low bits that are not zero make the text no value, so every value
 * has exactly one text (an edited character is never the same value) and a hostile cookie costs a loop.
 */
final class Base64Url {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final byte[] VALUES = new byte[128];

    static {
        Arrays.fill(VALUES, (byte) -1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for (int i = 0; i < alphabet.length(); i++) {
            VALUES[alphabet.charAt(i)] = (byte) i;
        }
    }

    private Base64Url() {
    }

    static String encode(byte[] bytes, int offset, int length) {
        return ENCODER.encodeToString(Arrays.copyOfRange(bytes, offset, offset + length));
    }

    /** True when {@code c} is in the base64url alphabet. */
    static boolean isAlphabet(char c) {
        return c < 128 && VALUES[c] >= 0;
    }

    /** How many bytes {@code chars} characters of unpadded base64url hold, or -1 when none can have that length. */
    static int decodedLength(int chars) {
        return chars % 4 == 1 ? -1 : chars / 4 * 3 + Math.max(0, chars % 4 - 1);
    }

    /**
     * Decodes {@code text} into {@code out} (large enough for {@link #decodedLength}), returning the byte count,
     * or -1 when the text is not canonical unpadded base64url.
     */
    static int decode(String text, byte[] out) {
        int length = text.length();
        int bytes = decodedLength(length);
        if (bytes < 0 || bytes > out.length) {
            return -1;
        }
        int o = 0;
        int i = 0;
        for (; i + 4 <= length; i += 4) {
            int a = value(text.charAt(i));
            int b = value(text.charAt(i + 1));
            int c = value(text.charAt(i + 2));
            int d = value(text.charAt(i + 3));
            if ((a | b | c | d) < 0) {
                return -1;
            }
            int group = a << 18 | b << 12 | c << 6 | d;
            out[o++] = (byte) (group >>> 16);
            out[o++] = (byte) (group >>> 8);
            out[o++] = (byte) group;
        }
        int rest = length - i;
        if (rest == 2) {
            int a = value(text.charAt(i));
            int b = value(text.charAt(i + 1));
            if ((a | b) < 0 || (b & 0x0F) != 0) {
                return -1;
            }
            out[o++] = (byte) (a << 2 | b >>> 4);
        } else if (rest == 3) {
            int a = value(text.charAt(i));
            int b = value(text.charAt(i + 1));
            int c = value(text.charAt(i + 2));
            if ((a | b | c) < 0 || (c & 0x03) != 0) {
                return -1;
            }
            out[o++] = (byte) (a << 2 | b >>> 4);
            out[o++] = (byte) (b << 4 | c >>> 2);
        }
        return o;
    }

    private static int value(char c) {
        return c < 128 ? VALUES[c] : -1;
    }
}

package io.sluice.console.api;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;

/**
 * One certificate, named by the SHA-256 of its DER encoding: what the console is told to trust a server by. Written
 * {@code SHA256:AB:CD:...} (what the server prints at start and {@code --pin} takes); read also without the prefix,
 * without the colons, in either case, and as {@code openssl x509 -fingerprint -sha256} prints it.
 *
 * @param hex the 64 hexadecimal digits, upper case
 */
public record CertificatePin(String hex) {
    private static final String PREFIX = "SHA256:";

    public CertificatePin {
        if (hex == null || !hex.matches("[0-9A-F]{64}")) {
            throw new IllegalArgumentException("a certificate pin is SHA256: and the 64 hexadecimal digits of the "
                    + "certificate's SHA-256 fingerprint (the server prints it at start), was '" + hex + "'");
        }
    }

    /**
     * Reads a pin as written by {@link #toString()} or as a bare fingerprint.
     *
     * @throws IllegalArgumentException saying the expected form when {@code text} is not one
     */
    public static CertificatePin parse(String text) {
        String digits = text == null ? "" : text.strip();
        String upper = digits.toUpperCase(Locale.ROOT);
        for (String prefix : new String[] {PREFIX, "SHA-256:", "SHA256 FINGERPRINT=", "SHA-256 "}) {
            if (upper.startsWith(prefix)) {
                digits = digits.substring(prefix.length());
                break;
            }
        }
        String hex = digits.replace(":", "").toUpperCase(Locale.ROOT);
        if (!hex.matches("[0-9A-F]{64}")) {
            throw new IllegalArgumentException("a certificate pin is SHA256: and the 64 hexadecimal digits of the "
                    + "certificate's SHA-256 fingerprint (the server prints it at start), was '" + text + "'");
        }
        return new CertificatePin(hex);
    }

    /** The pin of {@code certificate}. */
    public static CertificatePin of(X509Certificate certificate) {
        try {
            return new CertificatePin(HexFormat.of().withUpperCase().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded())));
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("the certificate cannot be encoded: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no SHA-256", e);
        }
    }

    /** The fingerprint with colons, {@code AB:CD:...}, as OpenSSL and the server print it. */
    public String fingerprint() {
        StringBuilder out = new StringBuilder(hex.length() * 3 / 2);
        for (int i = 0; i < hex.length(); i += 2) {
            if (i > 0) {
                out.append(':');
            }
            out.append(hex, i, i + 2);
        }
        return out.toString();
    }

    /** {@code SHA256:AB:CD:...}: what {@code --pin} takes. */
    @Override
    public String toString() {
        return PREFIX + fingerprint();
    }
}

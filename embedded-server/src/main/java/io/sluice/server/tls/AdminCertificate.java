package io.sluice.server.tls;

import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The admin listener's certificate and key, ready for Jetty, and where they came from.
 *
 * @param keyStore    holds the key and chain under the alias {@code admin}
 * @param password    the in-memory key store's password
 * @param certificate the certificate the listener presents (the chain's first)
 * @param selfSigned  made by Sluice, to be pinned by the console on first use
 * @param source      the file(s) it was read from, for the start message
 */
public record AdminCertificate(KeyStore keyStore, char[] password, X509Certificate certificate, boolean selfSigned,
                               String source) {
    static final String ALIAS = "admin";

    /** The certificate's SHA-256 fingerprint as {@code openssl x509 -fingerprint -sha256} prints it. */
    public String fingerprint() {
        return fingerprint(certificate);
    }

    /**
     * The pin a console takes ({@code --pin}): {@code SHA256:} and the fingerprint. The console then trusts this
     * certificate and no other for the server, without asking (docs/manual/console.md).
     */
    public String pin() {
        return "SHA256:" + fingerprint();
    }

    public static String fingerprint(X509Certificate certificate) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest).toUpperCase(Locale.ROOT);
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("cannot fingerprint the admin certificate: " + e.getMessage(), e);
        }
    }
}

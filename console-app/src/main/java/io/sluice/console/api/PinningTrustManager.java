package io.sluice.console.api;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.function.BiConsumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts what the JDK trusts (a CA-signed certificate valid for the host: the usual checks), and else a
 * certificate whose SHA-256 fingerprint is the one pinned for this server, pinning it on first use. A
 * certificate that differs from the pin is refused with {@link CertificateChangedException}: nothing to
 * click through.
 */
final class PinningTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager system;
    private final CertificatePins pins;
    private final String server;
    private final BiConsumer<String, String> firstUse;

    /** The server's certificate is not the one pinned for it. */
    static final class CertificateChangedException extends CertificateException {
        CertificateChangedException(String message) {
            super(message);
        }
    }

    /** @param firstUse told (server, fingerprint) when a certificate is pinned for the first time */
    PinningTrustManager(CertificatePins pins, String server, BiConsumer<String, String> firstUse)
            throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init((KeyStore) null);
        X509ExtendedTrustManager found = null;
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509ExtendedTrustManager x509) {
                found = x509;
            }
        }
        if (found == null) {
            throw new GeneralSecurityException("the JDK offers no X.509 trust manager");
        }
        this.system = found;
        this.pins = pins;
        this.server = server;
        this.firstUse = firstUse;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        try {
            system.checkServerTrusted(chain, authType, engine);
        } catch (CertificateException untrusted) {
            pinned(chain);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        try {
            system.checkServerTrusted(chain, authType, socket);
        } catch (CertificateException untrusted) {
            pinned(chain);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            system.checkServerTrusted(chain, authType);
        } catch (CertificateException untrusted) {
            pinned(chain);
        }
    }

    private void pinned(X509Certificate[] chain) throws CertificateException {
        String fingerprint = fingerprint(chain[0]);
        String pin = pins.pinned(server).orElse(null);
        if (pin == null) {
            try {
                if (pins.pinIfAbsent(server, fingerprint)) {
                    firstUse.accept(server, fingerprint);
                    return;
                }
            } catch (IOException e) {
                throw new CertificateException("cannot pin the certificate of " + server + ": " + e.getMessage(), e);
            }
            pin = pins.pinned(server).orElseThrow();
        }
        if (!normal(pin).equals(normal(fingerprint))) {
            throw new CertificateChangedException("THE CERTIFICATE OF " + server + " CHANGED: pinned SHA-256 " + pin
                    + ", now offered " + fingerprint + ". Someone may be impersonating the server. If the server's "
                    + "certificate was replaced on purpose, remove its pin and connect again.");
        }
    }

    private static String normal(String fingerprint) {
        return fingerprint.replace(":", "").toUpperCase(java.util.Locale.ROOT);
    }

    static String fingerprint(X509Certificate certificate) throws CertificateException {
        try {
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new CertificateException("cannot fingerprint the certificate: " + e.getMessage(), e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("the console does not accept clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("the console does not accept clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("the console does not accept clients");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return system.getAcceptedIssuers();
    }
}

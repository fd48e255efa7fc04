package io.sluice.console.api;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Decides, during the TLS handshake and so before a single byte of HTTP is sent, whether the console may talk to
 * a server. With a pin, exactly the pinned certificate is trusted (the operator chose it; any other, even one an
 * authority signed, is {@link CertificateChangedException}). Without one, a certificate that chains to an
 * authority this machine trusts and names the host (HTTPS endpoint identification, as a browser checks it).
 * Everything else ends the handshake with an exception saying why: an authority's certificate for other names
 * ({@link WrongHostException}), or one nobody vouches for ({@link UnknownCertificateException}, carrying it for
 * the operator to compare). It never pins anything itself: trusting a new certificate is the operator's decision
 * (see docs/manual/console.md).
 */
final class PinningTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager authorities;
    private final CertificatePin pin;
    private final String server;

    /** The certificate differs from the one pinned for the server. */
    static final class CertificateChangedException extends CertificateException {
        CertificateChangedException(String message) {
            super(message);
        }
    }

    /** An authority this machine trusts signed the certificate, for other names than the server's. */
    static final class WrongHostException extends CertificateException {
        WrongHostException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Neither pinned nor signed by a trusted authority: what the server offered, for the operator to judge. */
    static final class UnknownCertificateException extends CertificateException {
        private final transient OfferedCertificate offered;

        UnknownCertificateException(OfferedCertificate offered) {
            super("the certificate of " + offered.server() + " is not trusted yet: " + offered.pin());
            this.offered = offered;
        }

        OfferedCertificate offered() {
            return offered;
        }
    }

    /**
     * @param authorities the certificate authorities to trust, or null for the JDK's ({@code cacerts} or
     *                    {@code javax.net.ssl.trustStore})
     * @param pin         the one certificate trusted for this server (the operator chose it), or null for the
     *                    authorities' judgement
     * @param server      {@code host:port}, for messages
     */
    PinningTrustManager(KeyStore authorities, CertificatePin pin, String server) throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(authorities);
        X509ExtendedTrustManager found = null;
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509ExtendedTrustManager x509) {
                found = x509;
            }
        }
        if (found == null) {
            throw new GeneralSecurityException("the JDK offers no X.509 trust manager");
        }
        this.authorities = found;
        this.pin = pin;
        this.server = server;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        if (pin != null) {
            pinned(chain);
        } else {
            try {
                // With the engine, the JDK also checks the host name (the HTTP client asks for HTTPS identification).
                authorities.checkServerTrusted(chain, authType, engine);
            } catch (CertificateException untrusted) {
                refuse(chain, authType, untrusted);
            }
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        if (pin != null) {
            pinned(chain);
        } else {
            try {
                authorities.checkServerTrusted(chain, authType, socket);
            } catch (CertificateException untrusted) {
                refuse(chain, authType, untrusted);
            }
        }
    }

    /** Without a connection there is no host name to check: only a pinned certificate is trusted. */
    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        if (pin != null) {
            pinned(chain);
        } else {
            refuse(chain, authType, new CertificateException("no host name to check the certificate against"));
        }
    }

    private void pinned(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException(server + " offered no certificate");
        }
        CertificatePin offered = CertificatePin.of(chain[0]);
        if (!offered.equals(pin)) {
            throw new CertificateChangedException("THE CERTIFICATE OF " + server + " CHANGED: pinned " + pin
                    + ", now offered " + offered + ". Nothing was sent to it. Someone may be impersonating "
                    + "the server. If its certificate was replaced on purpose, connect with the --pin the server "
                    + "printed at start (or remove its line from known-servers.json and trust it again).");
        }
    }

    private void refuse(X509Certificate[] chain, String authType, CertificateException untrusted)
            throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw untrusted;
        }
        OfferedCertificate offered = OfferedCertificate.of(server, chain[0]);
        if (signedByAnAuthority(chain, authType)) {
            throw new WrongHostException("the certificate of " + server + " is signed by " + offered.issuer()
                    + " but is for " + offered.names() + ", not for " + server + ": refused, nothing was sent. "
                    + "Connect by one of its names.", untrusted);
        }
        throw new UnknownCertificateException(offered);
    }

    /** The chain is good apart from the host name. */
    private boolean signedByAnAuthority(X509Certificate[] chain, String authType) {
        try {
            authorities.checkServerTrusted(chain, authType);
            return true;
        } catch (CertificateException | RuntimeException e) {
            return false;
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
        return authorities.getAcceptedIssuers();
    }
}

package io.sluice.console.api;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The certificate a server presented that the console has not been told to trust: what the operator compares
 * with what the server printed at start before trusting it. Nothing but the TLS handshake was exchanged to
 * learn it.
 *
 * @param server   {@code host:port}, as the pin is kept
 * @param pin      its SHA-256 fingerprint
 * @param subject  who it says it is
 * @param issuer   who signed it (the subject itself when self-signed)
 * @param notAfter when it expires
 * @param names    the host names and addresses it is valid for
 */
public record OfferedCertificate(String server, CertificatePin pin, String subject, String issuer, Instant notAfter,
                                 List<String> names) {
    public OfferedCertificate {
        names = List.copyOf(names);
    }

    static OfferedCertificate of(String server, X509Certificate certificate) {
        return new OfferedCertificate(server, CertificatePin.of(certificate),
                certificate.getSubjectX500Principal().getName(), certificate.getIssuerX500Principal().getName(),
                certificate.getNotAfter().toInstant(), names(certificate));
    }

    /** The certificate's subject alternative names (DNS names and IP addresses). */
    static List<String> names(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (List<?> alternative : alternatives) {
                    if (alternative.size() > 1 && alternative.get(1) instanceof String name) {
                        names.add(name);
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // Unreadable names: the fingerprint alone still identifies the certificate.
        }
        return names;
    }

    public boolean selfSigned() {
        return subject.equals(issuer);
    }
}

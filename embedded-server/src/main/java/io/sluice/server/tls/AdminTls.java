package io.sluice.server.tls;

import io.sluice.server.state.AtomicFiles;
import io.sluice.server.state.FileSafety;
import io.sluice.server.state.StateException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The admin listener's TLS certificate: the operator's (PEM, or PKCS#12 with {@code .p12}/{@code .pfx}),
 * or else Sluice's own, made at first start into the state directory ({@code admin-tls.key}, owner-only,
 * and {@code admin-tls.crt}) and kept across restarts so the fingerprint the console pinned stays valid.
 * Delete both files to make a new one (every console then refuses it until its pin is removed).
 */
public final class AdminTls {
    public static final String CERTIFICATE_FILE = "admin-tls.crt";
    public static final String KEY_FILE = "admin-tls.key";

    /**
     * The operator's choice.
     *
     * @param certificate  a PEM certificate chain (with or without its key) or a PKCS#12 file; null for
     *                     Sluice's self-signed one
     * @param key          the PEM private key when not in {@code certificate}, or null
     * @param passwordFile the PKCS#12 password (first line), or null for none
     */
    public record Settings(Path certificate, Path key, Path passwordFile) {
        public static final Settings SELF_SIGNED = new Settings(null, null, null);
    }

    private AdminTls() {
    }

    /**
     * Loads the operator's certificate, or reads (making it first if needed) the self-signed one.
     *
     * @param listenHost the admin listener's host (an address, a name, or a wildcard)
     * @param hostNames  further names the certificate should be valid for
     */
    public static AdminCertificate load(Settings settings, Path stateDir, String listenHost, Set<String> hostNames) {
        char[] password = randomPassword();
        try {
            if (settings.certificate() != null) {
                return operators(settings, password);
            }
            Path key = stateDir.resolve(KEY_FILE);
            Path certificate = stateDir.resolve(CERTIFICATE_FILE);
            if (!Files.exists(key) || !Files.exists(certificate)) {
                makeSelfSigned(key, certificate, listenHost, hostNames);
            }
            FileSafety.checkSecret(key, "TLS key file");
            KeyStore store = CertificateFiles.fromPem(certificate, key, password);
            return new AdminCertificate(store, password, first(store), true, certificate.toString());
        } catch (IOException | GeneralSecurityException e) {
            throw new StateException("cannot set up TLS for the admin listener: " + e.getMessage(), e);
        }
    }

    /** The self-signed certificate in {@code stateDir}, if one was made (for {@code sluice-server tls fingerprint}). */
    public static Optional<X509Certificate> selfSigned(Path stateDir) {
        Path certificate = stateDir.resolve(CERTIFICATE_FILE);
        if (!Files.exists(certificate)) {
            return Optional.empty();
        }
        try {
            return Optional.of(first(CertificateFiles.fromPem(certificate, stateDir.resolve(KEY_FILE),
                    randomPassword())));
        } catch (IOException | GeneralSecurityException e) {
            throw new StateException("cannot read " + certificate + ": " + e.getMessage(), e);
        }
    }

    /** The operator's certificate (for {@code sluice-server tls fingerprint --admin-cert FILE}). */
    public static X509Certificate operatorsCertificate(Settings settings) {
        try {
            return operators(settings, randomPassword()).certificate();
        } catch (IOException | GeneralSecurityException e) {
            throw new StateException("cannot read " + settings.certificate() + ": " + e.getMessage(), e);
        }
    }

    private static AdminCertificate operators(Settings settings, char[] password) throws IOException,
            GeneralSecurityException {
        String name = settings.certificate().getFileName().toString().toLowerCase(Locale.ROOT);
        KeyStore store;
        if (name.endsWith(".p12") || name.endsWith(".pfx")) {
            char[] filePassword = settings.passwordFile() == null ? new char[0]
                    : Files.readAllLines(settings.passwordFile(), StandardCharsets.UTF_8).stream().findFirst()
                            .orElse("").toCharArray();
            store = CertificateFiles.fromPkcs12(settings.certificate(), filePassword, password);
        } else {
            store = CertificateFiles.fromPem(settings.certificate(), settings.key(), password);
        }
        return new AdminCertificate(store, password, first(store), false, settings.certificate().toString());
    }

    private static void makeSelfSigned(Path key, Path certificate, String listenHost, Set<String> hostNames)
            throws IOException, GeneralSecurityException {
        Set<String> names = new LinkedHashSet<>();
        names.add("localhost");
        Set<InetAddress> addresses = new LinkedHashSet<>();
        addresses.add(InetAddress.getLoopbackAddress());
        addresses.add(InetAddress.getByName("::1"));
        try {
            names.add(InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT));
        } catch (UnknownHostException e) {
            // A machine without a resolvable name: addresses and the names given still work.
        }
        names.addAll(hostNames);
        if (listenHost == null || listenHost.isBlank() || "0.0.0.0".equals(listenHost) || "::".equals(listenHost)) {
            addresses.addAll(CertificateFiles.localAddresses());
        } else if (Character.digit(listenHost.charAt(0), 16) >= 0 && listenHost.matches("[0-9a-fA-F.:]+")) {
            addresses.add(InetAddress.getByName(listenHost));
        } else {
            names.add(listenHost.toLowerCase(Locale.ROOT));
        }
        CertificateFiles.KeyPairAndCertificate made = CertificateFiles.selfSigned(names, addresses, Instant.now());
        PrivateKey privateKey = made.key();
        AtomicFiles.write(key, CertificateFiles.pem(privateKey).getBytes(StandardCharsets.US_ASCII));
        AtomicFiles.write(certificate, CertificateFiles.pem(made.certificate()).getBytes(StandardCharsets.US_ASCII));
    }

    private static X509Certificate first(KeyStore store) throws GeneralSecurityException {
        Certificate[] chain = store.getCertificateChain(AdminCertificate.ALIAS);
        return (X509Certificate) chain[0];
    }

    private static char[] randomPassword() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes).toCharArray();
    }
}

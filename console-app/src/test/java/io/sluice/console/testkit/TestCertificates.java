package io.sluice.console.testkit;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates for trust tests, made with Bouncy Castle: a test CA (trusted only where a test says so, never by
 * the JDK), certificates it signs for chosen names, and self-signed ones like a rogue would present.
 */
public final class TestCertificates {
    private static final char[] PASSWORD = "test".toCharArray();

    private TestCertificates() {
    }

    /** A key and its certificate chain (leaf first). */
    public record Issued(KeyPair keys, List<X509Certificate> chain) {
        public X509Certificate certificate() {
            return chain.get(0);
        }

        /** A key store holding the key under {@code key}, for a TLS server. */
        public KeyStore keyStore() throws GeneralSecurityException, IOException {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("key", keys.getPrivate(), PASSWORD, chain.toArray(new Certificate[0]));
            return store;
        }

        public char[] password() {
            return PASSWORD.clone();
        }

        /** Writes the chain and the key as PEM files in {@code dir}: [certificate, key]. */
        public Path[] writePem(Path dir, String name) throws IOException {
            StringWriter certificates = new StringWriter();
            try (JcaPEMWriter writer = new JcaPEMWriter(certificates)) {
                for (X509Certificate certificate : chain) {
                    writer.writeObject(certificate);
                }
            }
            StringWriter key = new StringWriter();
            try (JcaPEMWriter writer = new JcaPEMWriter(key)) {
                writer.writeObject(new JcaPKCS8Generator(keys.getPrivate(), null));
            }
            Path certificateFile = Files.writeString(dir.resolve(name + ".crt"), certificates.toString(),
                    StandardCharsets.US_ASCII);
            Path keyFile = Files.writeString(dir.resolve(name + ".key"), key.toString(), StandardCharsets.US_ASCII);
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
            return new Path[] {certificateFile, keyFile};
        }
    }

    /** A certificate authority of its own. */
    public static Issued authority(String name) throws GeneralSecurityException, IOException {
        KeyPair keys = keys();
        X500Name subject = new X500Name("CN=" + name);
        JcaX509v3CertificateBuilder builder = builder(subject, subject, keys);
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        return new Issued(keys, List.of(sign(builder, keys)));
    }

    /** A server certificate signed by {@code authority}, valid for {@code names} (DNS names or IP addresses). */
    public static Issued signedBy(Issued authority, String... names) throws GeneralSecurityException, IOException {
        KeyPair keys = keys();
        JcaX509v3CertificateBuilder builder = builder(new X500Name("CN=" + names[0]),
                X500Name.getInstance(authority.certificate().getSubjectX500Principal().getEncoded()), keys);
        server(builder, names);
        List<X509Certificate> chain = new ArrayList<>();
        chain.add(sign(builder, authority.keys()));
        chain.addAll(authority.chain());
        return new Issued(keys, chain);
    }

    /** A self-signed server certificate for {@code names}: what an impostor can make in a second. */
    public static Issued selfSigned(String... names) throws GeneralSecurityException, IOException {
        KeyPair keys = keys();
        X500Name subject = new X500Name("CN=" + names[0]);
        JcaX509v3CertificateBuilder builder = builder(subject, subject, keys);
        server(builder, names);
        return new Issued(keys, List.of(sign(builder, keys)));
    }

    /** A trust store holding only {@code authority}. */
    public static KeyStore trusting(Issued authority) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", authority.certificate());
        return store;
    }

    private static void server(JcaX509v3CertificateBuilder builder, String... names) throws IOException {
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        List<GeneralName> alternatives = new ArrayList<>();
        for (String name : names) {
            alternatives.add(new GeneralName(name.matches("[0-9.]+|.*:.*") ? GeneralName.iPAddress
                    : GeneralName.dNSName, name));
        }
        builder.addExtension(Extension.subjectAlternativeName, false,
                new GeneralNames(alternatives.toArray(new GeneralName[0])));
    }

    private static JcaX509v3CertificateBuilder builder(X500Name subject, X500Name issuer, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, new SecureRandom()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(30))), subject,
                keys.getPublic());
    }

    private static KeyPair keys() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder builder, KeyPair signer)
            throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }
}

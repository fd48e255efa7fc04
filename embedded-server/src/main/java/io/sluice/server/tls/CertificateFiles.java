package io.sluice.server.tls;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;

/**
 * Reads an operator's certificate (PEM or PKCS#12) and makes or reads Sluice's own self-signed one, with
 * Bouncy Castle's PKIX classes over the JDK's own providers (nothing is registered with the JDK).
 */
final class CertificateFiles {
    private static final Duration SELF_SIGNED_VALIDITY = Duration.ofDays(5 * 365);

    private CertificateFiles() {
    }

    /** A key and certificate chain from PEM: the chain from {@code certificate}, the key from {@code key} or it. */
    static KeyStore fromPem(Path certificate, Path key, char[] password) throws IOException, GeneralSecurityException {
        List<X509Certificate> chain = new ArrayList<>();
        PrivateKey privateKey = null;
        for (Object item : pemObjects(certificate)) {
            if (item instanceof X509CertificateHolder holder) {
                chain.add(new JcaX509CertificateConverter().getCertificate(holder));
            } else if (privateKey == null) {
                privateKey = privateKey(item);
            }
        }
        if (key != null) {
            for (Object item : pemObjects(key)) {
                privateKey = privateKey == null ? privateKey(item) : privateKey;
            }
        }
        if (chain.isEmpty()) {
            throw new GeneralSecurityException(certificate + " holds no PEM certificate");
        }
        if (privateKey == null) {
            throw new GeneralSecurityException("no unencrypted PEM private key in " + (key == null ? certificate : key)
                    + " (give it with --admin-key)");
        }
        return keyStore(privateKey, chain.toArray(new Certificate[0]), password);
    }

    private static List<Object> pemObjects(Path file) throws IOException {
        List<Object> objects = new ArrayList<>();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
             PEMParser parser = new PEMParser(reader)) {
            for (Object item = parser.readObject(); item != null; item = parser.readObject()) {
                objects.add(item);
            }
        }
        return objects;
    }

    private static PrivateKey privateKey(Object item) throws IOException {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        if (item instanceof PEMKeyPair pair) {
            return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        if (item instanceof PrivateKeyInfo info) {
            return converter.getPrivateKey(info);
        }
        return null;
    }

    /** A PKCS#12 file's first key entry. */
    static KeyStore fromPkcs12(Path file, char[] filePassword, char[] password) throws IOException,
            GeneralSecurityException {
        KeyStore source = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(file)) {
            source.load(in, filePassword);
        }
        for (String alias : Collections.list(source.aliases())) {
            if (source.isKeyEntry(alias)) {
                return keyStore((PrivateKey) source.getKey(alias, filePassword), source.getCertificateChain(alias),
                        password);
            }
        }
        throw new GeneralSecurityException(file + " holds no private key");
    }

    static KeyStore keyStore(PrivateKey key, Certificate[] chain, char[] password) throws IOException,
            GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry(AdminCertificate.ALIAS, key, password, chain);
        return store;
    }

    /** A new EC P-256 key and a self-signed certificate valid for {@code names} and {@code addresses}. */
    static KeyPairAndCertificate selfSigned(Set<String> names, Set<InetAddress> addresses, Instant now)
            throws GeneralSecurityException, IOException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair pair = generator.generateKeyPair();
        List<GeneralName> alternatives = new ArrayList<>();
        names.forEach(name -> alternatives.add(new GeneralName(GeneralName.dNSName, name)));
        addresses.forEach(address -> alternatives.add(new GeneralName(GeneralName.iPAddress,
                address.getHostAddress().replaceAll("%.*", ""))));
        X500Name subject = new X500Name("CN=" + names.iterator().next() + ",O=Sluice admin (self-signed)");
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject,
                new BigInteger(128, new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(5))),
                Date.from(now.plus(SELF_SIGNED_VALIDITY)), subject, pair.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        builder.addExtension(Extension.subjectAlternativeName, false,
                new GeneralNames(alternatives.toArray(new GeneralName[0])));
        try {
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
            return new KeyPairAndCertificate(pair.getPrivate(), certificate);
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException("cannot sign the admin certificate: " + e.getMessage(), e);
        }
    }

    /** A private key and its certificate. */
    record KeyPairAndCertificate(PrivateKey key, X509Certificate certificate) {
    }

    /** PEM of a certificate, or of a private key as PKCS#8 ({@code PRIVATE KEY}, what OpenSSL writes today). */
    static String pem(Object object) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            if (object instanceof PrivateKey key) {
                writer.writeObject(new JcaPKCS8Generator(key, null));
            } else {
                writer.writeObject(object);
            }
        }
        return out.toString();
    }

    /** Every address of this machine's interfaces (for a listener bound to all of them). */
    static Set<InetAddress> localAddresses() {
        Set<InetAddress> addresses = new LinkedHashSet<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                addresses.addAll(Collections.list(nic.getInetAddresses()));
            }
        } catch (SocketException e) {
            // The loopback addresses added by the caller are still there.
        }
        return addresses;
    }
}

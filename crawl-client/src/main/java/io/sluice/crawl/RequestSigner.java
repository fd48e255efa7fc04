package io.sluice.crawl;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Signs a worker's requests as its fleet (Web Bot Auth: HTTP message signatures, RFC 9421, as
 * draft-ietf-webbotauth-httpsig-protocol profiles them), so the sites it fetches from can tell it from a copy of its
 * user agent. Each request gets its own signature over {@code @method}, {@code @authority}, {@code @path} and its
 * {@code Signature-Agent} member, with {@code created}, {@code expires} (a short validity), a random {@code nonce},
 * the key's thumbprint as {@code keyid} and the tag {@code web-bot-auth}.
 *
 * <p>The key is the fleet's Ed25519 private key (PKCS#8 PEM, {@code openssl genpkey -algorithm ed25519}); the
 * {@code Signature-Agent} URL is where the fleet's key directory is served: a Sluice front end does it with
 * {@code --signature-agent-key} pointing at the same key (docs/manual/signed-agents.md). JDK only. Thread-safe.
 */
public final class RequestSigner {

    /** The label of the signature and of its Signature-Agent member. */
    static final String LABEL = "sig1";
    private static final byte[] PKCS8_PREFIX = {0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65,
        0x70, 0x04, 0x22, 0x04, 0x20};

    private final PrivateKey key;
    private final String keyid;
    private final String agent;
    private final Duration validity;
    private final InstantSource clock;
    private final SecureRandom random = new SecureRandom();

    private RequestSigner(PrivateKey key, String keyid, URI agent, Duration validity, InstantSource clock) {
        this.key = key;
        this.keyid = keyid;
        this.agent = agent.toString();
        this.validity = validity;
        this.clock = clock;
    }

    /**
     * @param keyFile        the fleet's Ed25519 private key, PKCS#8 PEM
     * @param signatureAgent the fleet's key directory: an https origin (its well-known path is meant) or URL
     * @param validity       how long a signature is valid (a minute is plenty for a request sent at once)
     * @throws IOException              the file cannot be read
     * @throws IllegalArgumentException it holds no Ed25519 private key, or the URL is not absolute
     */
    public static RequestSigner fromPemFile(Path keyFile, URI signatureAgent, Duration validity, InstantSource clock)
            throws IOException {
        String pem = Files.readString(keyFile, StandardCharsets.US_ASCII);
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException(keyFile + " holds no PEM private key (PKCS#8)");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
        if (der.length != PKCS8_PREFIX.length + 32
                || !Arrays.equals(Arrays.copyOf(der, PKCS8_PREFIX.length), PKCS8_PREFIX)) {
            throw new IllegalArgumentException(keyFile + " holds no Ed25519 private key");
        }
        if (!signatureAgent.isAbsolute() || signatureAgent.getHost() == null) {
            throw new IllegalArgumentException("the Signature-Agent is an absolute URL: " + signatureAgent);
        }
        try {
            PrivateKey key = KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(der));
            byte[] seed = Arrays.copyOfRange(der, PKCS8_PREFIX.length, der.length);
            return new RequestSigner(key, thumbprint(publicKey(seed)), signatureAgent, validity, clock);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(keyFile + ": " + e.getMessage(), e);
        }
    }

    /**
     * The public key of {@code seed}: the JDK derives a key pair from the bytes its random source gives, so a source
     * that gives the seed yields its public key (the JDK 17 API has no other way to derive it).
     */
    private static byte[] publicKey(byte[] seed) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("Ed25519");
        generator.initialize(NamedParameterSpec.ED25519, new SecureRandom() {
            @Override
            public void nextBytes(byte[] bytes) {
                System.arraycopy(seed, 0, bytes, 0, Math.min(seed.length, bytes.length));
            }
        });
        byte[] encoded = generator.generateKeyPair().getPublic().getEncoded();
        return Arrays.copyOfRange(encoded, encoded.length - 32, encoded.length);
    }

    /** The JWK SHA-256 thumbprint of an Ed25519 public key (RFC 7638, RFC 8037): the draft's {@code keyid}. */
    static String thumbprint(byte[] publicKey) throws GeneralSecurityException {
        String x = Base64.getUrlEncoder().withoutPadding().encodeToString(publicKey);
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(("{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\""
                + x + "\"}").getBytes(StandardCharsets.UTF_8));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    }

    /** The key's thumbprint, as signatures name it. */
    public String keyid() {
        return keyid;
    }

    /**
     * The headers that sign {@code method target} now: {@code Signature-Agent}, {@code Signature-Input} and
     * {@code Signature}, to add to the request as they are.
     */
    public Map<String, String> headers(String method, URI target) {
        long created = clock.instant().getEpochSecond();
        byte[] nonce = new byte[32];
        random.nextBytes(nonce);
        String agentMember = LABEL + "=\"" + agent + "\"";
        String params = "(\"@method\" \"@authority\" \"@path\" \"signature-agent\";key=\"" + LABEL + "\");created="
                + created + ";expires=" + (created + Math.max(1, validity.toSeconds())) + ";keyid=\"" + keyid
                + "\";alg=\"ed25519\";nonce=\"" + Base64.getEncoder().encodeToString(nonce) + "\";tag=\"web-bot-auth\"";
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        String base = "\"@method\": " + method + "\n"
                + "\"@authority\": " + authority(target) + "\n"
                + "\"@path\": " + path + "\n"
                + "\"signature-agent\";key=\"" + LABEL + "\": \"" + agent + "\"\n"
                + "\"@signature-params\": " + params;
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Signature-Agent", agentMember);
        headers.put("Signature-Input", LABEL + "=" + params);
        headers.put("Signature", LABEL + "=:" + Base64.getEncoder().encodeToString(sign(base)) + ":");
        return headers;
    }

    private byte[] sign(String base) {
        try {
            Signature signature = Signature.getInstance("Ed25519");
            signature.initSign(key);
            signature.update(base.getBytes(StandardCharsets.UTF_8));
            return signature.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 is part of every JDK 15+", e);
        }
    }

    /** The target's authority as RFC 9421 covers it: lowercase host, the port only when not the scheme's default. */
    static String authority(URI target) {
        String host = target.getHost().toLowerCase(Locale.ROOT);
        if (host.contains(":")) {
            host = host.startsWith("[") ? host : "[" + host + "]";
        }
        int port = target.getPort();
        boolean standard = port < 0 || ("https".equalsIgnoreCase(target.getScheme()) && port == 443)
                || ("http".equalsIgnoreCase(target.getScheme()) && port == 80);
        return standard ? host : host + ":" + port;
    }
}

package io.sluice.benchmarks;

import io.sluice.engine.SignedMessage;
import io.sluice.server.botauth.SignedAgentOptions;
import io.sluice.server.botauth.WebBotAuthVerifier;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Verifying a Web Bot Auth signature with the agent's key already cached, as the front end does on the request
 * thread for every signed request (issue 48; goal: at most 30 us): a valid signature over {@code @method},
 * {@code @authority}, {@code @path} and the {@code Signature-Agent} member (parsing, the signature base, one Ed25519
 * verification); a forged one (a bit of the signature flipped: the whole check runs and fails); and one whose
 * parameters are refused (expired) before any cryptography. The baseline {@code ed25519Alone} is the cryptography
 * alone (Bouncy Castle's Ed25519 verification of the same signature base with the same decoded key, as
 * {@code AgentKey} holds it): the floor no parsing can go below on this machine.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SignedAgentBenchmark {

    static final long NOW = 1_790_000_000L;
    static final String AGENT = "https://fleet.example";
    static final URI DIRECTORY = URI.create(AGENT + "/.well-known/http-message-signatures-directory");

    private WebBotAuthVerifier verifier;
    private SignedMessage valid;
    private SignedMessage forged;
    private SignedMessage expired;
    private Ed25519.PublicPoint point;
    private byte[] base;
    private byte[] signature;

    @Setup
    public void setUp() throws Exception {
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        byte[] spki = pair.getPublic().getEncoded();
        String x = Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOfRange(spki, spki.length - 32,
                spki.length));
        String jwk = "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"" + x + "\"}";
        String keyid = Base64.getUrlEncoder().withoutPadding().encodeToString(MessageDigest.getInstance("SHA-256")
                .digest(jwk.getBytes(StandardCharsets.UTF_8)));
        verifier = WebBotAuthVerifier.withDirectories(Map.of(DIRECTORY, "{\"keys\":[{\"kty\":\"OKP\",\"crv\":"
                + "\"Ed25519\",\"x\":\"" + x + "\"}]}"), SignedAgentOptions.DEFAULTS,
                InstantSource.fixed(Instant.ofEpochSecond(NOW)));
        valid = signed(pair, keyid, NOW - 1, NOW + 60, false);
        point = Ed25519.validatePublicKeyFullExport(Base64.getUrlDecoder().decode(x), 0);
        base = signatureBase(keyid, NOW - 1, NOW + 60).getBytes(StandardCharsets.UTF_8);
        signature = Base64.getDecoder().decode(valid.headers().get("signature").replaceAll("^sig1=:|:$", ""));
        forged = signed(pair, keyid, NOW - 1, NOW + 60, true);
        expired = signed(pair, keyid, NOW - 120, NOW - 60, false);
        verifier.verifiedAgent(valid, NOW * 1000); // fetches the (pinned) directory: the key is cached from here on
        if (!"fleet.example".equals(verify()) || forged() != null || expired() != null || !ed25519Alone()) {
            throw new IllegalStateException("the benchmark's signatures are not what they should be");
        }
    }

    private static String params(String keyid, long created, long expires) {
        return "(\"@method\" \"@authority\" \"@path\" \"signature-agent\";key=\"sig1\");created=" + created
                + ";expires=" + expires + ";keyid=\"" + keyid + "\";alg=\"ed25519\";tag=\"web-bot-auth\"";
    }

    private static String signatureBase(String keyid, long created, long expires) {
        return "\"@method\": GET\n\"@authority\": shop.example\n\"@path\": /catalogue/page-7\n"
                + "\"signature-agent\";key=\"sig1\": \"" + AGENT + "\"\n\"@signature-params\": "
                + params(keyid, created, expires);
    }

    private static SignedMessage signed(KeyPair pair, String keyid, long created, long expires, boolean forge)
            throws Exception {
        String params = params(keyid, created, expires);
        String base = signatureBase(keyid, created, expires);
        Signature signer = Signature.getInstance("Ed25519");
        signer.initSign(pair.getPrivate());
        signer.update(base.getBytes(StandardCharsets.UTF_8));
        byte[] signature = signer.sign();
        if (forge) {
            signature[10] ^= 1;
        }
        return new SignedMessage("GET", "https", "shop.example", "/catalogue/page-7", null, Map.of(
                "host", "shop.example",
                "user-agent", "FleetBot/1.0",
                "signature-agent", "sig1=\"" + AGENT + "\"",
                "signature-input", "sig1=" + params,
                "signature", "sig1=:" + Base64.getEncoder().encodeToString(signature) + ":"));
    }

    @Benchmark
    public String verify() {
        return verifier.verifiedAgent(valid, NOW * 1000);
    }

    @Benchmark
    public String forged() {
        return verifier.verifiedAgent(forged, NOW * 1000);
    }

    /** The baseline: the Ed25519 verification alone, over the signature base {@link #verify} builds. */
    @Benchmark
    public boolean ed25519Alone() {
        return Ed25519.verify(signature, 0, point, base, 0, base.length);
    }

    @Benchmark
    public String expired() {
        return verifier.verifiedAgent(expired, NOW * 1000);
    }
}

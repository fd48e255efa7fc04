package io.sluice.server.botauth;

import io.sluice.engine.SignedMessage;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/** Signs test requests as a web-bot-auth agent would (the base from {@link SignatureBase}, checked by the vectors). */
final class Signer {

    /** The Ed25519 test key of RFC 9421 appendix B.1.4 (its seed and public key). */
    static final String TEST_SEED = "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU";
    static final String TEST_X = "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs";

    private final byte[] seed;
    private final String keyid;

    Signer(byte[] seed) {
        this.seed = seed.clone();
        byte[] x = new byte[32];
        Ed25519.generatePublicKey(seed, 0, x, 0);
        this.keyid = AgentKey.thumbprint(Base64.getUrlEncoder().withoutPadding().encodeToString(x));
    }

    static Signer rfcTestKey() {
        return new Signer(Base64.getUrlDecoder().decode(TEST_SEED));
    }

    String keyid() {
        return keyid;
    }

    /** The key's directory, as an agent publishes it. */
    String directory() {
        byte[] x = new byte[32];
        Ed25519.generatePublicKey(seed, 0, x, 0);
        return KeyDirectory.json(java.util.List.of(AgentKey.ofJwk(Base64.getUrlEncoder().withoutPadding()
                .encodeToString(x))));
    }

    /**
     * {@code GET path} to {@code authority} signed over {@code @authority} and the Signature-Agent member for
     * {@code agentUrl}, valid from {@code created} to {@code expires} (epoch seconds), with {@code nonce} unless null.
     */
    SignedMessage sign(String authority, String path, String agentUrl, long created, long expires, String nonce) {
        Map<String, String> headers = new HashMap<>();
        headers.put("host", authority);
        headers.put("signature-agent", "agent=\"" + agentUrl + "\"");
        String params = "(\"@authority\" \"signature-agent\";key=\"agent\");created=" + created + ";keyid=\"" + keyid
                + "\";alg=\"ed25519\";expires=" + expires + (nonce == null ? "" : ";nonce=\"" + nonce + "\"")
                + ";tag=\"web-bot-auth\"";
        headers.put("signature-input", "sig1=" + params);
        SignedMessage unsigned = new SignedMessage("GET", "https", authority, path, null, headers);
        String base = SignatureBase.of(unsigned, StructuredFields.dictionary("sig1=" + params).get("sig1").items(),
                params);
        headers.put("signature", "sig1=:" + Base64.getEncoder().encodeToString(signature(base)) + ":");
        return new SignedMessage("GET", "https", authority, path, null, headers);
    }

    byte[] signature(String base) {
        byte[] message = base.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[Ed25519.SIGNATURE_SIZE];
        Ed25519.sign(seed, 0, message, 0, message.length, out, 0);
        return out;
    }

    /** {@code message} with header {@code name} set to {@code value}. */
    static SignedMessage with(SignedMessage message, String name, String value) {
        Map<String, String> headers = new HashMap<>(message.headers());
        headers.put(name, value);
        return new SignedMessage(message.method(), message.scheme(), message.authority(), message.path(),
                message.query(), headers);
    }
}

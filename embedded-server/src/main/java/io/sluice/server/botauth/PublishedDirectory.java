package io.sluice.server.botauth;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The key directory of the fleet this Sluice governs, served by the front end at
 * {@code /.well-known/http-message-signatures-directory} (docs/manual/signed-agents.md): so sites a fleet's workers
 * fetch from, signing with the fleet's key (io.sluice.crawl.RequestSigner), can verify them against the site this
 * Sluice fronts. Answered before the throttle, as the draft asks (a verifier's fetch must not meet bot protection):
 * a small constant body.
 */
public final class PublishedDirectory {

    /** Where it is served. */
    public static final String PATH = AgentUrl.WELL_KNOWN;
    /** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410), before the 32 key bytes. */
    private static final byte[] SPKI_PREFIX = hex("302a300506032b6570032100");
    /** DER prefix of an Ed25519 PKCS#8 private key (RFC 8410), before the 32-byte seed. */
    private static final byte[] PKCS8_PREFIX = hex("302e020100300506032b657004220420");

    private final byte[] body;

    private PublishedDirectory(byte[] body) {
        this.body = body;
    }

    /**
     * The directory of the key in {@code file}: PEM, an Ed25519 public key ({@code PUBLIC KEY}) or private key
     * ({@code PRIVATE KEY}, PKCS#8: only its public half is published).
     *
     * @throws IOException the file cannot be read
     * @throws IllegalArgumentException it holds no Ed25519 key
     */
    public static PublishedDirectory of(Path file) throws IOException {
        return new PublishedDirectory(KeyDirectory.json(List.of(publicKey(Files.readString(file))))
                .getBytes(StandardCharsets.UTF_8));
    }

    static AgentKey publicKey(String pem) {
        String type = pem.contains("BEGIN PRIVATE KEY") ? "PRIVATE" : pem.contains("BEGIN PUBLIC KEY") ? "PUBLIC"
                : null;
        if (type == null) {
            throw new IllegalArgumentException("not a PEM public or private key");
        }
        String base64 = pem.substring(pem.indexOf("-----", pem.indexOf("BEGIN " + type + " KEY")) + 5,
                pem.indexOf("-----END")).replaceAll("\\s", "");
        byte[] der = Base64.getDecoder().decode(base64);
        byte[] prefix = "PUBLIC".equals(type) ? SPKI_PREFIX : PKCS8_PREFIX;
        if (der.length != prefix.length + 32
                || !ByteBuffer.wrap(der, 0, prefix.length).equals(ByteBuffer.wrap(prefix))) {
            throw new IllegalArgumentException("not an Ed25519 key");
        }
        byte[] raw = new byte[32];
        if ("PUBLIC".equals(type)) {
            System.arraycopy(der, prefix.length, raw, 0, 32);
        } else {
            Ed25519.generatePublicKey(der, prefix.length, raw, 0);
        }
        return AgentKey.ofJwk(Base64.getUrlEncoder().withoutPadding().encodeToString(raw));
    }

    /** The directory's JSON. */
    public byte[] body() {
        return body.clone();
    }

    /** Answers {@code GET} or {@code HEAD} of the directory; another method gets 405. */
    public void answer(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            Response.writeError(request, response, callback, HttpStatus.METHOD_NOT_ALLOWED_405);
            return;
        }
        response.setStatus(HttpStatus.OK_200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, HttpDirectoryFetcher.MEDIA_TYPE);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "max-age=86400");
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, "HEAD".equals(method) ? ByteBuffer.allocate(0) : ByteBuffer.wrap(body), callback);
    }

    private static byte[] hex(String text) {
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}

package io.sluice.server.botauth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.engine.SignedMessage;
import io.sluice.engine.classify.SignedAgents;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Verifies a request's HTTP message signature (RFC 9421) as draft-ietf-webbotauth-httpsig-protocol profiles it, on
 * the request thread, from keys {@link KeyDirectories} fetched earlier. A signature verifies when, for one label of
 * {@code Signature-Input}:
 * <ul>
 *   <li>its {@code tag} is {@code web-bot-auth}, its {@code alg} absent or {@code ed25519}, and it has a
 *       {@code keyid}, a {@code created} and an {@code expires};</li>
 *   <li>it is in force at the engine's clock: created no later than {@code maxSkew} from now, not expired, valid for
 *       no longer than {@code maxWindow};</li>
 *   <li>it covers {@code @authority} (or {@code @target-uri}) and the {@code Signature-Agent} member it names (the
 *       dictionary form, {@code "signature-agent";key="..."}, or the draft's earlier bare string);</li>
 *   <li>that member is a directory URL this server may fetch, its directory is held and has the key {@code keyid}
 *       names (by thumbprint), and the signature over the base built from the request is that key's;</li>
 *   <li>its {@code nonce}, if any, has not been seen before for that directory while the signature is in force.</li>
 * </ul>
 * Anything else is "not verified" (null), never an exception: the request goes on as what its user agent says.
 * The draft's three outcomes are counted apart: {@link #verified()}, {@link #invalid()} (the signature or its
 * parameters fail) and {@link #unverified()} (the key is not known yet, or its directory cannot be had).
 */
public final class WebBotAuthVerifier implements SignedAgents {

    /** The tag of a web-bot-auth signature. */
    static final String TAG = "web-bot-auth";
    /** Signatures checked per request at most: a dictionary of many labels costs no more than this. */
    static final int MAX_CHECKS = 2;

    private final KeyDirectories directories;
    private final SignedAgentOptions options;
    private final Cache<String, Long> nonces;
    private final AtomicLong verified = new AtomicLong();
    private final AtomicLong invalid = new AtomicLong();
    private final AtomicLong unverified = new AtomicLong();

    WebBotAuthVerifier(KeyDirectories directories, SignedAgentOptions options, InstantSource clock) {
        this.directories = directories;
        this.options = options;
        this.nonces = Caffeine.newBuilder().maximumSize(options.maxNonces())
                .expireAfterWrite(options.maxWindow().toMillis() + options.maxSkew().toMillis(), TimeUnit.MILLISECONDS)
                .ticker(() -> clock.millis() * 1_000_000L).build();
    }

    /**
     * A verifier whose directories are the given JSON documents by fetch URL (answered at once, never from the
     * network): for benchmarks and for a deployment that pins its agents' keys. A URL not in the map is a failed
     * fetch.
     */
    public static WebBotAuthVerifier withDirectories(Map<URI, String> directories, SignedAgentOptions options,
                                                     InstantSource clock) {
        Map<URI, String> copy = Map.copyOf(directories);
        DirectoryFetcher pinned = uri -> copy.containsKey(uri)
                ? CompletableFuture.completedFuture(new DirectoryFetcher.Fetched(
                        copy.get(uri).getBytes(StandardCharsets.UTF_8), null))
                : CompletableFuture.failedFuture(new IllegalStateException("not a pinned directory: " + uri));
        return new WebBotAuthVerifier(new KeyDirectories(pinned, clock, options), options, clock);
    }

    @Override
    public String verifiedAgent(SignedMessage message, long nowMillis) {
        try {
            return verify(message, nowMillis);
        } catch (RuntimeException malformed) { // a header that does not parse: a claim refused, never a 500
            invalid.incrementAndGet();
            return null;
        }
    }

    private String verify(SignedMessage message, long now) {
        String inputHeader = message.header("signature-input");
        String signatureHeader = message.header("signature");
        String agentHeader = message.header("signature-agent");
        if (inputHeader == null || signatureHeader == null || agentHeader == null) {
            invalid.incrementAndGet();
            return null;
        }
        Map<String, StructuredFields.Member> inputs = StructuredFields.dictionary(inputHeader);
        Map<String, StructuredFields.Member> signatures = StructuredFields.dictionary(signatureHeader);
        int checks = 0;
        boolean unknownKey = false;
        for (Map.Entry<String, StructuredFields.Member> input : inputs.entrySet()) {
            StructuredFields.Member member = input.getValue();
            StructuredFields.Member signature = signatures.get(input.getKey());
            if (!member.isInnerList() || !TAG.equals(member.params().get("tag")) || signature == null
                    || signature.isInnerList() || !(signature.item().value() instanceof byte[] bytes)) {
                continue;
            }
            AgentUrl url = inForce(member, agentHeader, now);
            if (url == null) {
                continue;
            }
            KeyDirectory directory = directories.keys(url);
            AgentKey key = directory == null ? null : directory.key((String) member.params().get("keyid"));
            if (key == null) {
                unknownKey = true;
                continue;
            }
            if (++checks > MAX_CHECKS) {
                break;
            }
            String base = SignatureBase.of(message, member.items(), member.serialize());
            if (key.verifies(bytes, base.getBytes(StandardCharsets.UTF_8)) && fresh(url, member, now)) {
                verified.incrementAndGet();
                return url.name();
            }
        }
        (unknownKey && checks == 0 ? unverified : invalid).incrementAndGet();
        return null;
    }

    /**
     * The directory URL of a signature whose parameters and covered components this profile accepts and that is in
     * force at {@code now}, or null.
     */
    private AgentUrl inForce(StructuredFields.Member member, String agentHeader, long now) {
        Map<String, Object> params = member.params();
        Object alg = params.get("alg");
        if ((alg != null && !"ed25519".equals(alg)) || !(params.get("keyid") instanceof String)
                || !(params.get("created") instanceof Long created)
                || !(params.get("expires") instanceof Long expires)) {
            return null;
        }
        long createdMillis = created * 1000;
        long expiresMillis = expires * 1000;
        if (createdMillis > now + options.maxSkew().toMillis() || now >= expiresMillis || expires <= created
                || expiresMillis - createdMillis > options.maxWindow().toMillis()) {
            return null;
        }
        boolean authority = false;
        String agent = null;
        for (StructuredFields.Item component : member.items()) {
            Object name = component.value();
            if ("@authority".equals(name) || "@target-uri".equals(name)) {
                authority = true;
            } else if ("signature-agent".equals(name)) {
                agent = agentMember(component, agentHeader);
            }
        }
        return authority && agent != null ? AgentUrl.parse(agent, options.plainHttp()) : null;
    }

    /** The URL of the {@code Signature-Agent} member a covered component names, or null when it names none. */
    private static String agentMember(StructuredFields.Item component, String agentHeader) {
        if (component.params().isEmpty()) {
            // the draft's earlier form: the whole header is one string
            return agentHeader.startsWith("\"") ? StructuredFields.item(agentHeader).text() : null;
        }
        if (!(component.params().get("key") instanceof String key) || component.params().size() != 1
                || agentHeader.startsWith("\"")) {
            return null;
        }
        StructuredFields.Member agent = StructuredFields.dictionary(agentHeader).get(key);
        // a member with parameters is ignored (the draft), and its value is a string
        if (agent == null || agent.isInnerList() || !agent.item().params().isEmpty()
                || !(agent.item().value() instanceof String url)) {
            return null;
        }
        return url;
    }

    /** A signature without a nonce is fresh; one with a nonce is, the first time it is seen for its directory. */
    private boolean fresh(AgentUrl url, StructuredFields.Member member, long now) {
        if (!(member.params().get("nonce") instanceof String nonce)) {
            return true;
        }
        long expires = (Long) member.params().get("expires") * 1000;
        Long seen = nonces.asMap().putIfAbsent(url.identifier() + ' ' + nonce, expires);
        return seen == null;
    }

    /** Signatures verified. */
    public long verified() {
        return verified.get();
    }

    /** Signed requests refused: a signature, its parameters, its covered components or a replayed nonce. */
    public long invalid() {
        return invalid.get();
    }

    /** Signed requests whose key is not held (yet): their directory is being fetched, or cannot be had. */
    public long unverified() {
        return unverified.get();
    }

    /** The directories this verifier asks. */
    KeyDirectories directories() {
        return directories;
    }
}

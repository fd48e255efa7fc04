package io.sluice.server.botauth;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.SignedMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Web Bot Auth verification (docs/manual/signed-agents.md) against the published test vectors of RFC 9421 and of
 * draft-ietf-webbotauth-httpsig-protocol, then every way a claim is refused: each one a plain "not verified",
 * never an exception.
 */
class WebBotAuthVerifierTest {

    /** The draft's vectors are valid for a century: verified with the window widened, refused by the default. */
    private static final Duration CENTURY = Duration.ofDays(366L * 100);
    private static final String AGENT = "https://signature-agent.test";

    private final AtomicLong now = new AtomicLong(1_735_690_000_000L);
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private final FakeFetcher fetcher = new FakeFetcher();

    private WebBotAuthVerifier verifier(SignedAgentOptions options) {
        return new WebBotAuthVerifier(new KeyDirectories(fetcher, clock, options), options, clock);
    }

    private static SignedAgentOptions vectors() {
        SignedAgentOptions d = SignedAgentOptions.DEFAULTS.withTestKeys();
        return new SignedAgentOptions(true, List.of(), false, true, null, d.maxDirectories(), d.fetchesPerHost(),
                d.fetchesInAll(), d.maxBytes(), d.fetchTimeout(), d.minFresh(), d.maxFresh(), d.maxStale(),
                d.maxSkew(), CENTURY, d.maxNonces());
    }

    /** The draft's request: {@code example.com}, the headers as given. */
    private static SignedMessage request(String agent, String input, String signature) {
        Map<String, String> headers = new HashMap<>();
        headers.put("host", "example.com");
        headers.put("signature-agent", agent);
        headers.put("signature-input", input);
        headers.put("signature", signature);
        return new SignedMessage("GET", "https", "example.com", "/path/to/resource", null, headers);
    }

    /** draft-ietf-webbotauth-httpsig-protocol, "EdDSA Using Curve edwards25519", Signature-Agent as a dictionary. */
    private static SignedMessage draftDictionaryVector() {
        return request("agent2=\"https://signature-agent.test\"",
                "sig2=(\"@authority\" \"signature-agent\";key=\"agent2\");created=1735689600"
                        + ";keyid=\"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U\";alg=\"ed25519\";expires=4889289600"
                        + ";nonce=\"n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1Ysa"
                        + "uiA==\";tag=\"web-bot-auth\"",
                "sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:");
    }

    /** The same draft's legacy vector: Signature-Agent as a bare string, valid one hour. */
    private static SignedMessage draftLegacyVector() {
        return request("\"https://signature-agent.test\"",
                "sig2=(\"@authority\" \"signature-agent\");created=1735689600"
                        + ";keyid=\"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U\";alg=\"ed25519\";expires=1735693200"
                        + ";nonce=\"e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeL"
                        + "ElW1qg==\";tag=\"web-bot-auth\"",
                "sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:");
    }

    /** Verifies {@code message} twice: the first asks for the directory, which then answers with the test key. */
    private String verifiedOnceKnown(WebBotAuthVerifier verifier, SignedMessage message) {
        assertThat(verifier.verifiedAgent(message, now.get())).isNull(); // key unknown: an unverified claim for now
        assertThat(verifier.unverified()).isEqualTo(1);
        assertThat(fetcher.count()).isEqualTo(1);
        assertThat(fetcher.last().uri()).hasToString(AGENT + AgentUrl.WELL_KNOWN);
        fetcher.last().answer(Signer.rfcTestKey().directory(), 3600L);
        return verifier.verifiedAgent(message, now.get());
    }

    @Test
    void rfc9421AppendixB26VerifiesWithTheTestKeyButIsNotAWebBotAuthSignature() {
        Map<String, String> headers = new HashMap<>();
        headers.put("host", "example.com");
        headers.put("date", "Tue, 20 Apr 2021 02:07:55 GMT");
        headers.put("content-type", "application/json");
        headers.put("content-length", "18");
        String input = "sig-b26=(\"date\" \"@method\" \"@path\" \"@authority\" \"content-type\" \"content-length\")"
                + ";created=1618884473;keyid=\"test-key-ed25519\"";
        headers.put("signature-input", input);
        headers.put("signature", "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vu"
                + "Qv5lIp5WPpBKRCw==:");
        headers.put("signature-agent", "\"" + AGENT + "\"");
        SignedMessage message = new SignedMessage("POST", "http", "example.com", "/foo", "param=Value&Pet=dog",
                headers);
        StructuredFields.Member member = StructuredFields.dictionary(input).get("sig-b26");
        String base = SignatureBase.of(message, member.items(), member.serialize());
        assertThat(base).isEqualTo("\"date\": Tue, 20 Apr 2021 02:07:55 GMT\n\"@method\": POST\n\"@path\": /foo\n"
                + "\"@authority\": example.com\n\"content-type\": application/json\n\"content-length\": 18\n"
                + "\"@signature-params\": (\"date\" \"@method\" \"@path\" \"@authority\" \"content-type\" "
                + "\"content-length\");created=1618884473;keyid=\"test-key-ed25519\"");
        byte[] signature = StructuredFields.dictionary(headers.get("signature")).get("sig-b26").item().value()
                instanceof byte[] bytes ? bytes : null;
        assertThat(AgentKey.ofJwk(Signer.TEST_X).verifies(signature, base.getBytes(StandardCharsets.UTF_8))).isTrue();
        // no tag web-bot-auth, no expires, no Signature-Agent covered: not this profile's, whatever the key
        assertThat(verifier(vectors()).verifiedAgent(message, now.get())).isNull();
        assertThat(fetcher.count()).isZero();
    }

    @Test
    void theDraftsEd25519VectorWithADictionarySignatureAgentVerifiesOnceItsDirectoryIsFetched() {
        WebBotAuthVerifier verifier = verifier(vectors());
        assertThat(AgentKey.ofJwk(Signer.TEST_X).thumbprint()).isEqualTo(KeyDirectory.RFC9421_TEST_KEY);
        assertThat(verifiedOnceKnown(verifier, draftDictionaryVector())).isEqualTo("signature-agent.test");
        assertThat(verifier.verified()).isEqualTo(1);
    }

    @Test
    void theDraftsLegacyStringVectorVerifiesWithinItsHour() {
        WebBotAuthVerifier verifier = verifier(vectors());
        assertThat(verifiedOnceKnown(verifier, draftLegacyVector())).isEqualTo("signature-agent.test");
        now.set(1_735_693_200_000L); // its expires
        assertThat(verifier.verifiedAgent(draftLegacyVector(), now.get())).isNull();
    }

    @Test
    void aNonceIsVerifiedOnceAndItsReplayIsRefused() {
        WebBotAuthVerifier verifier = verifier(vectors());
        assertThat(verifiedOnceKnown(verifier, draftDictionaryVector())).isEqualTo("signature-agent.test");
        assertThat(verifier.verifiedAgent(draftDictionaryVector(), now.get())).isNull();
        assertThat(verifier.invalid()).isEqualTo(1);
    }

    @Test
    void theDefaultWindowRefusesASignatureValidForACentury() {
        WebBotAuthVerifier verifier = verifier(SignedAgentOptions.DEFAULTS.withTestKeys());
        assertThat(verifier.verifiedAgent(draftDictionaryVector(), now.get())).isNull();
        assertThat(fetcher.count()).isZero(); // refused before any fetch
    }

    @Test
    void aTamperedAuthorityOrAgentIsRefused() {
        WebBotAuthVerifier verifier = verifier(vectors());
        assertThat(verifiedOnceKnown(verifier, draftLegacyVector())).isNotNull();
        SignedMessage elsewhere = new SignedMessage("GET", "https", "example.org", "/path/to/resource", null,
                draftLegacyVector().headers());
        assertThat(verifier.verifiedAgent(elsewhere, now.get())).isNull();
        // another agent's URL over the same signature: its directory is asked for, and nothing verifies meanwhile
        SignedMessage otherAgent = Signer.with(draftLegacyVector(), "signature-agent", "\"https://other.test\"");
        assertThat(verifier.verifiedAgent(otherAgent, now.get())).isNull();
        // a flipped bit of the signature
        String signature = draftLegacyVector().header("signature").replace("jdq0", "jdq1");
        assertThat(verifier.verifiedAgent(Signer.with(draftLegacyVector(), "signature", signature), now.get()))
                .isNull();
        assertThat(verifier.invalid()).isEqualTo(2);
    }

    @Test
    void aSignatureByAnotherKeyUnderTheDirectorysKeyidIsRefused() {
        WebBotAuthVerifier verifier = verifier(vectors());
        Signer impostor = new Signer(new byte[32]);
        SignedMessage signed = impostor.sign("example.com", "/", AGENT, 1_735_689_600L, 1_735_690_600L, null);
        // the impostor claims the test key's keyid, which the directory publishes
        String input = signed.header("signature-input").replace(impostor.keyid(), KeyDirectory.RFC9421_TEST_KEY);
        SignedMessage claimed = Signer.with(signed, "signature-input", input);
        assertThat(verifier.verifiedAgent(claimed, now.get())).isNull();
        fetcher.last().answer(Signer.rfcTestKey().directory(), null);
        assertThat(verifier.verifiedAgent(claimed, now.get())).isNull();
        assertThat(verifier.invalid()).isEqualTo(1);
        // and its own keyid is not in that directory: unverified, never attributed to the agent
        assertThat(verifier.verifiedAgent(signed, now.get())).isNull();
    }

    @Test
    void anExpiredOrFutureSignatureIsRefusedWithoutAFetch() {
        WebBotAuthVerifier verifier = verifier(vectors());
        Signer signer = Signer.rfcTestKey();
        long at = now.get() / 1000;
        assertThat(verifier.verifiedAgent(signer.sign("example.com", "/", AGENT, at - 600, at - 1, null),
                now.get())).isNull();
        assertThat(verifier.verifiedAgent(signer.sign("example.com", "/", AGENT, at + 120, at + 600, null),
                now.get())).isNull();
        assertThat(fetcher.count()).isZero();
        // a minute of skew is allowed
        assertThat(verifier.verifiedAgent(signer.sign("example.com", "/", AGENT, at + 30, at + 600, null),
                now.get())).isNull();
        fetcher.last().answer(signer.directory(), null);
        assertThat(verifier.verifiedAgent(signer.sign("example.com", "/", AGENT, at + 30, at + 600, null),
                now.get())).isEqualTo("signature-agent.test");
    }

    @Test
    void profileViolationsAreRefused() {
        WebBotAuthVerifier verifier = verifier(vectors());
        assertThat(verifiedOnceKnown(verifier, draftLegacyVector())).isNotNull();
        SignedMessage good = draftLegacyVector();
        String input = good.header("signature-input");
        List<String> broken = List.of(
                input.replace("tag=\"web-bot-auth\"", "tag=\"other\""),
                input.replace("alg=\"ed25519\"", "alg=\"rsa-pss-sha512\""),
                input.replace(";created=1735689600", ""),
                input.replace(";expires=1735693200", ""),
                input.replace("(\"@authority\" \"signature-agent\")", "(\"@authority\")"),
                input.replace("(\"@authority\" \"signature-agent\")", "(\"signature-agent\")"),
                "sig2=(\"@authority\" \"signature-agent\"",
                "sig2=(\"@authority\" \"@authority\" \"signature-agent\")" + input.substring(input.indexOf(';')),
                "not a dictionary at all ((((");
        for (String value : broken) {
            assertThat(verifier.verifiedAgent(Signer.with(good, "signature-input", value), now.get()))
                    .as(value).isNull();
        }
        assertThat(verifier.verifiedAgent(Signer.with(good, "signature", "sig2=:not base64!:"), now.get())).isNull();
        assertThat(verifier.verifiedAgent(Signer.with(good, "signature-agent", "\"http://signature-agent.test\""),
                now.get())).isNull(); // plain http is not a directory URL by default
        assertThat(verifier.verified()).isEqualTo(1);
    }

    @Test
    void aDictionaryMemberWithParametersIsIgnored() {
        WebBotAuthVerifier verifier = verifier(vectors());
        assertThat(verifiedOnceKnown(verifier, draftDictionaryVector())).isNotNull();
        // covered as signed, but a member with parameters names no directory (the draft: ignore it)
        SignedMessage withParams = Signer.with(draftDictionaryVector(), "signature-agent",
                "agent2=\"https://signature-agent.test\";type=jwks_uri");
        assertThat(verifier.verifiedAgent(withParams, now.get())).isNull();
    }

    @Test
    void theRfcTestKeyInADirectoryIsRefusedByDefault() {
        SignedAgentOptions d = SignedAgentOptions.DEFAULTS;
        WebBotAuthVerifier verifier = verifier(new SignedAgentOptions(true, List.of(), false, false, null,
                d.maxDirectories(), d.fetchesPerHost(), d.fetchesInAll(), d.maxBytes(), d.fetchTimeout(),
                d.minFresh(), d.maxFresh(), d.maxStale(), d.maxSkew(), CENTURY, d.maxNonces()));
        assertThat(verifier.verifiedAgent(draftDictionaryVector(), now.get())).isNull();
        fetcher.last().answer(Signer.rfcTestKey().directory(), null);
        assertThat(verifier.verifiedAgent(draftDictionaryVector(), now.get())).isNull();
        assertThat(verifier.directories().failed()).isEqualTo(1);
    }

    @Test
    void aSignatureCoveringTheTargetUriAndPathVerifies() {
        WebBotAuthVerifier verifier = verifier(vectors());
        Signer signer = new Signer(Base64.getDecoder().decode("AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="));
        long at = now.get() / 1000;
        Map<String, String> headers = new HashMap<>();
        headers.put("signature-agent", "a=\"https://fleet.example/keys.json?v=2\"");
        String params = "(\"@method\" \"@target-uri\" \"@path\" \"signature-agent\";key=\"a\");created=" + at
                + ";expires=" + (at + 60) + ";keyid=\"" + signer.keyid() + "\";tag=\"web-bot-auth\"";
        headers.put("signature-input", "s=" + params);
        SignedMessage unsigned = new SignedMessage("GET", "https", "Shop.Example:443", "/a%20b", "q=1", headers);
        String base = SignatureBase.of(unsigned, StructuredFields.dictionary("s=" + params).get("s").items(), params);
        assertThat(base).startsWith("\"@method\": GET\n\"@target-uri\": https://shop.example/a%20b?q=1\n"
                + "\"@path\": /a%20b\n\"signature-agent\";key=\"a\": \"https://fleet.example/keys.json?v=2\"\n");
        headers.put("signature", "s=:" + Base64.getEncoder().encodeToString(signer.signature(base)) + ":");
        SignedMessage signed = new SignedMessage("GET", "https", "Shop.Example:443", "/a%20b", "q=1", headers);
        assertThat(verifier.verifiedAgent(signed, now.get())).isNull();
        assertThat(fetcher.last().uri()).hasToString("https://fleet.example/keys.json?v=2");
        fetcher.last().answer(signer.directory(), null);
        assertThat(verifier.verifiedAgent(signed, now.get())).isEqualTo("fleet.example/keys.json");
    }
}

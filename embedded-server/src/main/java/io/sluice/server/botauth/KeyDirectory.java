package io.sluice.server.botauth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An agent's key directory, read: its Ed25519 keys by thumbprint (a JWK Set, RFC 7517 section 5, as the webbotauth
 * draft's directory format). Keys are matched by the thumbprint computed from the key itself, never by the
 * directory's own {@code kid}; keys of other types are skipped, a malformed Ed25519 key refuses the whole directory.
 *
 * @param keys by thumbprint
 */
record KeyDirectory(Map<String, AgentKey> keys) {

    /** More keys than any agent rotates through: a longer set is refused (the draft's "key count"). */
    static final int MAX_KEYS = 32;
    /** The test key of RFC 9421 (appendix B.1.4), which the draft says a verifier should refuse in a directory. */
    static final String RFC9421_TEST_KEY = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";
    private static final ObjectMapper JSON = new ObjectMapper();

    KeyDirectory {
        keys = Map.copyOf(keys);
    }

    /**
     * @param allowTestKeys accept the RFC 9421 test key (tests and labs only)
     * @throws IllegalArgumentException not a JWK Set, too many keys, a malformed Ed25519 key, or no usable key
     */
    static KeyDirectory parse(byte[] body, boolean allowTestKeys) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON");
        }
        JsonNode keys = root == null ? null : root.get("keys");
        if (keys == null || !keys.isArray()) {
            throw new IllegalArgumentException("not a JWK Set: no keys array");
        }
        if (keys.size() > MAX_KEYS) {
            throw new IllegalArgumentException(keys.size() + " keys, more than " + MAX_KEYS);
        }
        Map<String, AgentKey> found = new HashMap<>();
        for (JsonNode key : keys) {
            if (!"OKP".equals(key.path("kty").asText()) || !"Ed25519".equals(key.path("crv").asText())) {
                continue; // another algorithm: not one this verifier checks
            }
            AgentKey parsed = AgentKey.ofJwk(key.path("x").asText(""));
            if (RFC9421_TEST_KEY.equals(parsed.thumbprint()) && !allowTestKeys) {
                continue;
            }
            found.put(parsed.thumbprint(), parsed);
        }
        if (found.isEmpty()) {
            throw new IllegalArgumentException("no Ed25519 key");
        }
        return new KeyDirectory(found);
    }

    /** A directory of {@code keys}, serialised (what a fleet publishes). */
    static String json(List<AgentKey> keys) {
        return keys.stream().map(AgentKey::jwk).collect(Collectors.joining(",", "{\"keys\":[", "]}"));
    }

    AgentKey key(String thumbprint) {
        return keys.get(thumbprint);
    }
}

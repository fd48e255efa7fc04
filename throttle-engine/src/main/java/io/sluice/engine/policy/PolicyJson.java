package io.sluice.engine.policy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one JSON configuration for policy, bans and snapshots, shared by the server, the console and
 * the state files so all three read and write the same form. Instants are ISO-8601 strings.
 */
public final class PolicyJson {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            // A misspelt field in a policy must be an error, not a silently ignored limit.
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();

    private PolicyJson() {
    }

    /** A shared, thread-safe mapper; do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }
}

package io.sluice.server.front;

import io.sluice.engine.SignedMessage;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;

/**
 * The parts of a signed request an HTTP message signature may cover, copied from Jetty's fields (which are recycled
 * once the request is done) for the engine's Web Bot Auth check (docs/manual/signed-agents.md). Only for a request
 * that carries {@code Signature-Input}: the copy costs nothing to the others.
 */
final class SignedMessages {

    static final String SIGNATURE_INPUT = "Signature-Input";

    private SignedMessages() {
    }

    /** Header values by lowercase name, several fields joined by {@code ", "} (RFC 9421 section 2.1). */
    static SignedMessage of(HttpFields headers, String method, boolean secure, String authority, String rawPath,
                            String query) {
        Map<String, String> values = new HashMap<>();
        for (HttpField field : headers) {
            String value = field.getValue() == null ? "" : field.getValue().strip();
            values.merge(field.getLowerCaseName(), value, (a, b) -> a + ", " + b);
        }
        String host = authority != null ? authority : values.get("host");
        return new SignedMessage(method, secure ? "https" : "http", host, rawPath, query, values);
    }
}

package io.sluice.engine;

import java.util.Locale;
import java.util.Map;

/**
 * What an HTTP message signature (RFC 9421) may cover of an inbound request, as the front end received it: given to
 * the engine only when the request carries a {@code Signature-Input} header, and checked by the installed
 * {@link io.sluice.engine.classify.SignedAgents} (docs/manual/signed-agents.md). An immutable copy, so that a request
 * looked at again later (the what-if shadow) never reads a recycled buffer.
 *
 * @param method    the request method, as sent
 * @param scheme    {@code http} or {@code https}: how the front end was reached
 * @param authority the {@code Host} (or HTTP/2 {@code :authority}), as sent
 * @param path      the request target's path, as sent (not decoded)
 * @param query     the raw query without {@code ?}, or null
 * @param headers   every header by its lowercase name, several fields of one name joined by {@code ", "}
 */
public record SignedMessage(String method, String scheme, String authority, String path, String query,
                            Map<String, String> headers) {

    public SignedMessage {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /** The value of header {@code name} (any case), or null when the request has none. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }
}

package io.sluice.server.front;

import io.sluice.engine.RateLimitStatus;
import org.eclipse.jetty.http.HttpFields;

/** The IETF draft {@code RateLimit-Policy} / {@code RateLimit} headers, from the client's hit-stack quota. */
final class RateLimitHeaders {
    private RateLimitHeaders() {
    }

    static void apply(HttpFields.Mutable headers, RateLimitStatus status) {
        if (status == null) {
            return;
        }
        headers.put("RateLimit-Policy", "\"hits\";q=" + status.limit() + ";w=" + status.windowSeconds());
        headers.put("RateLimit", "\"hits\";r=" + Math.max(0, status.remaining()) + ";t=" + status.resetSeconds());
    }
}

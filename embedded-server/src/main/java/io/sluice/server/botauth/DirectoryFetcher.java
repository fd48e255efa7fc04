package io.sluice.server.botauth;

import java.net.URI;
import java.util.concurrent.CompletableFuture;

/** Fetches a key directory off the request path. */
interface DirectoryFetcher {

    /** A directory's body, and how long it may be believed (its {@code Cache-Control: max-age}, or null). */
    record Fetched(byte[] body, Long maxAgeSeconds) {
    }

    /**
     * Starts fetching {@code uri}; the future fails (never hangs) on any refusal: an address not allowed, a status
     * other than 200, a redirect, a body over the limit, the timeout.
     */
    CompletableFuture<Fetched> fetch(URI uri);
}

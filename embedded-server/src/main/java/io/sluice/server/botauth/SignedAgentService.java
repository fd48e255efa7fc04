package io.sluice.server.botauth;

import java.io.IOException;
import java.time.InstantSource;

/**
 * Web Bot Auth on a front end: the verifier the engine asks, the directories it fetches, and the fleet's own
 * directory when one is published. Built once per server, closed with it.
 */
public final class SignedAgentService implements AutoCloseable {

    private final WebBotAuthVerifier verifier;
    private final HttpDirectoryFetcher fetcher;
    private final PublishedDirectory published;

    private SignedAgentService(WebBotAuthVerifier verifier, HttpDirectoryFetcher fetcher,
                               PublishedDirectory published) {
        this.verifier = verifier;
        this.fetcher = fetcher;
        this.published = published;
    }

    /**
     * @throws IOException the key to publish cannot be read
     * @throws IllegalArgumentException that file holds no Ed25519 key
     */
    public static SignedAgentService start(SignedAgentOptions options, InstantSource clock) throws Exception {
        PublishedDirectory published = options.publishKey() == null ? null
                : PublishedDirectory.of(options.publishKey());
        if (!options.enabled()) {
            return new SignedAgentService(null, null, published);
        }
        HttpDirectoryFetcher fetcher = new HttpDirectoryFetcher(options);
        WebBotAuthVerifier verifier = new WebBotAuthVerifier(new KeyDirectories(fetcher, clock, options), options,
                clock);
        return new SignedAgentService(verifier, fetcher, published);
    }

    /** What the engine asks, or null when verification is off. */
    public WebBotAuthVerifier verifier() {
        return verifier;
    }

    /** The fleet's directory to serve, or null when none is configured. */
    public PublishedDirectory published() {
        return published;
    }

    /** What verification has found since start; all zero while it is off. */
    public Counts counts() {
        if (verifier == null) {
            return new Counts(0, 0, 0, 0, 0, 0);
        }
        KeyDirectories directories = verifier.directories();
        return new Counts(verifier.verified(), verifier.invalid(), verifier.unverified(), directories.fetched(),
                directories.failed(), directories.skipped());
    }

    /**
     * Signed requests by outcome ({@link WebBotAuthVerifier#verified()} and the rest), and the key directory fetches
     * (read, failed, not started because of the bounds), since start.
     */
    public record Counts(long verified, long invalid, long unverified, long fetched, long failed, long skipped) {
    }

    @Override
    public void close() {
        if (fetcher != null) {
            fetcher.close();
        }
    }
}

package io.sluice.server.botauth;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How the front end verifies Web Bot Auth signatures and publishes its own fleet's key (docs/manual/signed-agents.md).
 *
 * @param enabled         verify signatures at all ({@code --signed-agents})
 * @param allowed         addresses or CIDRs a key directory may be fetched from although not public
 *                        ({@code --signed-agents-allow}); loopback and private ranges are refused otherwise
 * @param plainHttp       accept {@code http://} directory URLs (tests and labs; the draft requires HTTPS)
 * @param allowTestKeys   accept the RFC 9421 test key in a directory (tests only; the draft says refuse it)
 * @param publishKey      the fleet's Ed25519 key (PEM, public or private): its directory is served at
 *                        {@code /.well-known/http-message-signatures-directory} on the front end; null for none
 * @param maxDirectories  directories remembered at once
 * @param fetchesPerHost  directory fetches running at once per host
 * @param fetchesInAll    directory fetches running at once
 * @param maxBytes        the largest directory read; a longer one is refused
 * @param fetchTimeout    a fetch's whole time, connection included
 * @param minFresh        a directory is believed at least this long ({@code max-age} lower)
 * @param maxFresh        and at most this long; also the freshness of one without {@code max-age}
 * @param maxStale        keys are kept this long past their freshness while refreshing fails
 * @param maxSkew         a signature created this far in the future is still accepted (clocks differ)
 * @param maxWindow       the longest validity ({@code expires - created}) accepted; the draft recommends 24 h
 * @param maxNonces       nonces remembered against replays
 */
public record SignedAgentOptions(boolean enabled, List<String> allowed, boolean plainHttp, boolean allowTestKeys,
                                 Path publishKey, long maxDirectories, int fetchesPerHost, int fetchesInAll,
                                 int maxBytes, Duration fetchTimeout, Duration minFresh, Duration maxFresh,
                                 Duration maxStale, Duration maxSkew, Duration maxWindow, long maxNonces) {

    /** Verification on, public directories only, nothing published. */
    public static final SignedAgentOptions DEFAULTS = new SignedAgentOptions(true, List.of(), false, false, null,
            10_000, 2, 16, 64 * 1024, Duration.ofSeconds(5), Duration.ofMinutes(5), Duration.ofHours(24),
            Duration.ofHours(24), Duration.ofSeconds(60), Duration.ofHours(24), 100_000);

    public SignedAgentOptions {
        allowed = allowed == null ? List.of() : List.copyOf(allowed);
        if (maxDirectories < 1 || fetchesPerHost < 1 || fetchesInAll < 1 || maxBytes < 1 || maxNonces < 1) {
            throw new IllegalArgumentException("the bounds of signed-agent verification are at least 1");
        }
    }

    /** These options, verifying or not. */
    public SignedAgentOptions withEnabled(boolean on) {
        return new SignedAgentOptions(on, allowed, plainHttp, allowTestKeys, publishKey, maxDirectories,
                fetchesPerHost, fetchesInAll, maxBytes, fetchTimeout, minFresh, maxFresh, maxStale, maxSkew, maxWindow,
                maxNonces);
    }

    /** These options, also fetching from {@code cidrs} (e.g. a test's loopback), over plain HTTP when asked. */
    public SignedAgentOptions withAllowed(List<String> cidrs, boolean http) {
        return new SignedAgentOptions(enabled, cidrs, http, allowTestKeys, publishKey, maxDirectories, fetchesPerHost,
                fetchesInAll, maxBytes, fetchTimeout, minFresh, maxFresh, maxStale, maxSkew, maxWindow, maxNonces);
    }

    /** These options, accepting the RFC 9421 test key (tests). */
    public SignedAgentOptions withTestKeys() {
        return new SignedAgentOptions(enabled, allowed, plainHttp, true, publishKey, maxDirectories, fetchesPerHost,
                fetchesInAll, maxBytes, fetchTimeout, minFresh, maxFresh, maxStale, maxSkew, maxWindow, maxNonces);
    }

    /** These options, publishing the directory of the key in {@code file}. */
    public SignedAgentOptions withPublishKey(Path file) {
        return new SignedAgentOptions(enabled, allowed, plainHttp, allowTestKeys, file, maxDirectories,
                fetchesPerHost, fetchesInAll, maxBytes, fetchTimeout, minFresh, maxFresh, maxStale, maxSkew, maxWindow,
                maxNonces);
    }

    /** These options with fetches bounded by {@code bytes} and {@code timeout}. */
    public SignedAgentOptions withFetchLimits(int bytes, Duration timeout) {
        return new SignedAgentOptions(enabled, allowed, plainHttp, allowTestKeys, publishKey, maxDirectories,
                fetchesPerHost, fetchesInAll, bytes, timeout, minFresh, maxFresh, maxStale, maxSkew, maxWindow,
                maxNonces);
    }
}

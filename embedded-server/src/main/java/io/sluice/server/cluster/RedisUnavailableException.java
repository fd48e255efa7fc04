package io.sluice.server.cluster;

/** Redis cannot be asked right now (not connected yet, or disconnected); the caller goes on without it. */
final class RedisUnavailableException extends RuntimeException {
    RedisUnavailableException(String message) {
        super(message, null, false, false);
    }
}

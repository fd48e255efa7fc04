package io.sluice.engine.policy;

/** A change was based on a policy version that is no longer current (a lost update was prevented). */
public final class PolicyConflictException extends RuntimeException {
    private final long expectedVersion;
    private final long currentVersion;

    public PolicyConflictException(long expectedVersion, long currentVersion) {
        super("policy version is " + currentVersion + ", not " + expectedVersion);
        this.expectedVersion = expectedVersion;
        this.currentVersion = currentVersion;
    }

    public long expectedVersion() {
        return expectedVersion;
    }

    public long currentVersion() {
        return currentVersion;
    }
}

package io.sluice.server.cluster;

/**
 * Where the cluster keeps its browser pass key ring: Redis ({@link RedisRingStore}), or a test's fake. Calls block
 * for at most the store's deadline; they are made on {@link ClusterPassKeys}'s own thread, never a request's.
 */
interface RingStore {

    /**
     * The ring the cluster holds now ({@link SharedRing#NONE} when none).
     *
     * @throws RuntimeException when the store does not answer within its deadline
     */
    SharedRing read();

    /**
     * Writes {@code text} if the store still holds {@code expected} (null: none).
     *
     * @return whether it was written, and the ring the store holds now (the new one, or the one that got there
     *         first)
     * @throws RuntimeException when the store does not answer within its deadline (it may have written)
     */
    Published publish(String expected, String text, String node, long atMillis);

    /** A publication's outcome. */
    record Published(boolean written, SharedRing held) {
    }
}

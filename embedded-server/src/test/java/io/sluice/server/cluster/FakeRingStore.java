package io.sluice.server.cluster;

/**
 * A cluster's ring store in memory, with Redis's compare-and-set; it can be down, and can let another node's write in
 * between a node's read and its publication.
 */
final class FakeRingStore implements RingStore {
    private SharedRing held = SharedRing.NONE;
    private boolean down;
    private Runnable beforePublish = () -> { };

    synchronized SharedRing held() {
        return held;
    }

    synchronized void hold(SharedRing ring) {
        held = ring;
    }

    synchronized void down(boolean value) {
        down = value;
    }

    /** Runs once, just before the next publication is judged: another node's write landing first. */
    synchronized void beforeNextPublish(Runnable action) {
        beforePublish = action;
    }

    @Override
    public synchronized SharedRing read() {
        if (down) {
            throw new RedisUnavailableException("fake: not connected to Redis");
        }
        return held;
    }

    @Override
    public Published publish(String expected, String text, String node, long atMillis) {
        Runnable first;
        synchronized (this) {
            if (down) {
                throw new RedisUnavailableException("fake: not connected to Redis");
            }
            first = beforePublish;
            beforePublish = () -> { };
        }
        first.run();
        synchronized (this) {
            String now = held.exists() ? held.text() : null;
            if (!java.util.Objects.equals(now, expected)) {
                return new Published(false, held);
            }
            held = new SharedRing(text, node, atMillis);
            return new Published(true, held);
        }
    }
}

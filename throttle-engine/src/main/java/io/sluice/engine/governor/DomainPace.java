package io.sluice.engine.governor;

/**
 * A domain's pace: the learned rate, the delays that may lengthen the gap it gives (the operator's minimum
 * delay, robots.txt's {@code Crawl-delay}), and the {@link Pacer} that spaces grants by that gap. The grant path
 * reads it without a lock; it changes under its domain's lock. Times are microseconds.
 */
final class DomainPace {
    private static final long SECOND = 1_000_000;

    private final Pacer pacer = new Pacer();
    private volatile double rate;
    private volatile long intervalMicros;
    private volatile long minDelayMicros;
    private volatile long crawlDelayMicros;
    /** When the last grant was taken (a turn's slot may be spaced from an earlier time), or MIN_VALUE. */
    private volatile long lastGrant = Long.MIN_VALUE;

    DomainPace(double initialRate, long operatorMinDelayMicros) {
        this.minDelayMicros = operatorMinDelayMicros;
        setRate(initialRate);
    }

    double rate() {
        return rate;
    }

    /** The gap between two grants now: the rate's, or the longest minimum delay. */
    long intervalMicros() {
        return intervalMicros;
    }

    long minDelayMicros() {
        return minDelayMicros;
    }

    long crawlDelayMicros() {
        return crawlDelayMicros;
    }

    /** The longest of the delays this node knows (the operator's minimum delay, robots.txt). */
    long floorMicros() {
        return Math.max(minDelayMicros, crawlDelayMicros);
    }

    /** The next open slot, or {@code Long.MIN_VALUE} before the first grant. */
    long nextSlot() {
        return pacer.nextSlot();
    }

    /** Takes the slot if it is open at {@code now} and spaces the next by {@code interval}: 0, else the wait. */
    long tryAcquire(long now, long interval) {
        return pacer.tryAcquire(now, interval);
    }

    /** {@link Pacer#tryAcquireTurn}: a turn other workers waited through, spaced from its slot. */
    long tryAcquireTurn(long now, long interval, long floor) {
        return pacer.tryAcquireTurn(now, interval, floor);
    }

    /** A grant was taken at {@code now}: the minimum delays hold from it whatever the interval becomes. */
    void granted(long now) {
        lastGrant = now;
    }

    void setRate(double newRate) {
        rate = newRate;
        applyInterval();
    }

    void setMinDelay(long micros) {
        minDelayMicros = micros;
        applyInterval();
    }

    void setCrawlDelay(long micros) {
        crawlDelayMicros = micros;
        applyInterval();
    }

    /** Takes the cluster's rate and gap (which has every node's delays in it) as they are. */
    void mirror(double sharedRate, long sharedIntervalMicros) {
        rate = sharedRate;
        intervalMicros = Math.max(1, sharedIntervalMicros);
    }

    /** Takes the cluster's next slot as this node's (so a node that loses the cluster does not grant it again). */
    void mirrorSlot(long nextSlot) {
        pacer.mirror(nextSlot);
    }

    /** Forgets the slot and robots.txt's delay; keeps the operator's minimum delay. */
    void reset(double initialRate) {
        crawlDelayMicros = 0;
        pacer.reset();
        lastGrant = Long.MIN_VALUE;
        intervalMicros = 0;
        setRate(initialRate);
    }

    private void applyInterval() {
        long paced = (long) Math.ceil(SECOND / rate);
        long interval = Math.max(paced, Math.max(minDelayMicros, crawlDelayMicros));
        long old = intervalMicros;
        intervalMicros = interval;
        // Also when only a delay changed: it holds from the last grant, which a turn's slot may be closer to.
        if (old != 0) {
            long last = lastGrant;
            pacer.respace(old, interval, last == Long.MIN_VALUE ? Long.MIN_VALUE
                    : last + Math.max(minDelayMicros, crawlDelayMicros));
        }
    }
}

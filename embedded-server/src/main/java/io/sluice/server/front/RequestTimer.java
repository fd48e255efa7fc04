package io.sluice.server.front;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The deadlines of one visitor connection (nginx's {@code client_header_timeout} and Apache's
 * {@code mod_reqtimeout}): a request head must be complete within the head timeout of its first byte (of the
 * connection's opening, for the first request), however it trickles in; a request body, once read, must keep
 * arriving at the minimum rate after an allowance of the head timeout (due at {@code start + timeout +
 * bytes / rate}). A connection that misses one is closed and counted. Between requests only the idle timeout
 * applies.
 *
 * <p>The parser ({@link TimedHttpParser}) says what is under way; nothing is scheduled for a head or a body that
 * arrives in the read that began it, the common case, so a request costs a few field reads. One timer at a time
 * per connection, on Jetty's scheduler: when it fires it closes the connection if the deadline of what is under way
 * has passed, else sets itself for that deadline. Written by the thread that parses, read by the scheduler's.
 */
final class RequestTimer implements Runnable {
    private static final int NONE = 0;
    private static final int HEAD = 1;
    private static final int BODY = 2;

    private final EndPoint endPoint;
    private final Scheduler scheduler;
    private final ConnectionGuard guard;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** What is under way; {@link #since} is written before it, so a reader of a phase sees its start or a later one. */
    private volatile int phase = NONE;
    private volatile long since;
    private volatile long bodyBytes;
    private boolean started;

    RequestTimer(EndPoint endPoint, Scheduler scheduler, ConnectionGuard guard) {
        this.endPoint = endPoint;
        this.scheduler = scheduler;
        this.guard = guard;
    }

    /**
     * The connection opened: its first request's head is due within the head timeout, whether a byte comes or not.
     * Called before the connection reads (a connection handed over from the lean path keeps the deadlines begun).
     */
    void opened() {
        if (!started) {
            begin(HEAD);
        }
    }

    /** A request head has begun and is not complete yet. */
    void headUnderway() {
        if (phase != HEAD) {
            begin(HEAD);
        }
    }

    /** A request body is being read and is not complete yet; {@code read} bytes of it so far. */
    void bodyUnderway(long read) {
        if (guard.minBodyBytesPerSecond() <= 0) {
            idle();
            return;
        }
        bodyBytes = read;
        if (phase != BODY) {
            begin(BODY);
        }
    }

    /** Nothing of the client's is awaited on a deadline: between requests, or a request being handled. */
    void idle() {
        if (phase != NONE) {
            phase = NONE;
        }
    }

    private void begin(int what) {
        started = true;
        since = System.nanoTime();
        phase = what;
        if (scheduled.compareAndSet(false, true)) {
            scheduler.schedule(this, guard.headTimeoutNanos(), TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void run() {
        // Cleared before reading the phase: a phase begun meanwhile either sees the flag clear and schedules, or was
        // written before this read and is judged here.
        scheduled.set(false);
        int what = phase;
        if (what == NONE || !endPoint.isOpen()) {
            return;
        }
        long due = since + guard.headTimeoutNanos();
        if (what == BODY) {
            long rate = guard.minBodyBytesPerSecond();
            if (rate <= 0) {
                return; // the minimum was lifted (a reload) while this body was timed
            }
            due += bodyBytes * 1_000_000_000L / rate;
        }
        long left = due - System.nanoTime();
        if (left > 0) {
            if (scheduled.compareAndSet(false, true)) {
                scheduler.schedule(this, left, TimeUnit.NANOSECONDS);
            }
            return;
        }
        if (what == HEAD) {
            guard.shed().headTimedOut();
            endPoint.close(new TimeoutException("request head not complete within its deadline"));
        } else {
            guard.shed().bodyTooSlow();
            endPoint.close(new TimeoutException("request body below the minimum data rate"));
        }
    }
}

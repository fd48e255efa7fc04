package io.sluice.server.front;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadPendingException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.EndPoint;

/**
 * A connection from the lean path to the upstream, owned by one {@link UpstreamPool} (one selector thread).
 * While an exchange is attached it reads the response itself and calls {@link #demand()} when it needs to
 * wait for bytes; while the connection is idle in the pool, a byte or the end of the stream from the upstream
 * means it is of no further use, and it is closed.
 */
final class UpstreamConnection extends AbstractConnection.NonBlocking {
    private final UpstreamPool pool;
    private LeanExchange waiter;
    // Guarded by this.
    private LeanExchange exchange;
    private boolean waiting;
    private Throwable failure;

    UpstreamConnection(EndPoint endPoint, Executor executor, UpstreamPool pool, LeanExchange waiter) {
        super(endPoint, executor);
        this.pool = pool;
        this.waiter = waiter;
    }

    @Override
    public void onOpen() {
        super.onOpen();
        LeanExchange first = waiter;
        waiter = null;
        first.connected(this);
    }

    synchronized void attach(LeanExchange next) {
        exchange = next;
        waiting = false;
        failure = null;
    }

    synchronized void detach(LeanExchange done) {
        if (exchange == done) {
            exchange = null;
            waiting = false;
            failure = null;
        }
    }

    /** The attached exchange waits for bytes: it is resumed when they come (or the connection fails). */
    void demand() {
        LeanExchange failed = null;
        Throwable cause;
        synchronized (this) {
            cause = failure;
            if (cause != null) {
                failure = null;
                failed = exchange;
            } else {
                waiting = true;
            }
        }
        if (failed != null) {
            failed.upstreamReadable(cause);
            return;
        }
        interested();
    }

    /** Back in the pool: the connection watches for the upstream closing it. */
    void idle() {
        interested();
    }

    private void interested() {
        if (!isFillInterested()) {
            try {
                fillInterested();
            } catch (ReadPendingException alreadyInterested) {
                // Registered meanwhile by the other caller: one registration is all that is needed.
            }
        }
    }

    @Override
    public void onFillable() {
        LeanExchange resume;
        synchronized (this) {
            if (exchange == null) {
                readWhileIdle();
                return;
            }
            if (!waiting) {
                // The exchange is busy (sending, or writing to its client) and reads by itself when it needs to.
                return;
            }
            waiting = false;
            resume = exchange;
        }
        resume.upstreamReadable(null);
    }

    /** An idle connection became readable: the upstream closed it (or sent what nobody asked for). */
    private void readWhileIdle() {
        try {
            int filled = getEndPoint().fill(ByteBuffer.allocate(1).limit(0));
            if (filled == 0) {
                fillInterested();
                return;
            }
        } catch (IOException e) {
            // Closed below.
        }
        close();
    }

    @Override
    public void onFillInterestedFailed(Throwable cause) {
        LeanExchange resume = null;
        boolean idle;
        synchronized (this) {
            idle = exchange == null;
            if (waiting) {
                waiting = false;
                resume = exchange;
            } else if (!idle) {
                failure = cause;
            }
        }
        if (resume != null) {
            resume.upstreamReadable(cause);
        } else if (idle) {
            close();
        }
    }

    @Override
    public synchronized boolean onIdleExpired(TimeoutException timeout) {
        // An exchange busy writing to a slow client leaves its upstream quiet: that is not the upstream's silence.
        return exchange == null || waiting;
    }

    @Override
    public void onClose(Throwable cause) {
        super.onClose(cause);
        pool.remove(this);
    }
}

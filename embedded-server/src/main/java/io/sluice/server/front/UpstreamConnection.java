package io.sluice.server.front;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.EndPoint;

/**
 * A connection from the lean path to the upstream, owned by one {@link UpstreamPool} (one selector thread).
 * While an exchange is attached it reads the response itself and calls {@link #demand()} when it needs to
 * wait for bytes; while the connection is idle in the pool, a byte or the end of the stream from the upstream
 * means it is of no further use, and it is closed.
 */
final class UpstreamConnection extends AbstractConnection.NonBlocking implements HttpParser.ResponseHandler {
    private final UpstreamPool pool;
    /** One parser for the connection's life, as Jetty's client has: its header cache serves every response. */
    private final HttpParser parser;
    private LeanExchange waiter;
    /** The upstream's address this connection was opened to (the pool reuses it while that is still the address). */
    private final InetSocketAddress target;
    // Guarded by this.
    private LeanExchange exchange;
    private boolean waiting;
    private Throwable failure;

    UpstreamConnection(EndPoint endPoint, Executor executor, UpstreamPool pool, LeanExchange waiter,
                       InetSocketAddress target) {
        super(endPoint, executor);
        this.pool = pool;
        this.waiter = waiter;
        this.target = target;
        this.parser = new HttpParser(this, -1, pool.forwarding().upstreamCompliance());
    }

    InetSocketAddress target() {
        return target;
    }

    /** The response parser, ready for the attached exchange's response. */
    HttpParser parser() {
        return parser;
    }

    @Override
    public void onOpen() {
        super.onOpen();
        LeanExchange first = waiter;
        waiter = null;
        first.connected(this);
    }

    synchronized void attach(LeanExchange next, boolean headRequest) {
        parser.reset();
        parser.setHeadResponse(headRequest);
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
        ReadInterest.ensure(this);
    }

    /** Back in the pool: the connection watches for the upstream closing it. */
    void idle() {
        ReadInterest.ensure(this);
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

    // ---- the parser's events, for the attached exchange (only ever parsing on the exchange's behalf) ----

    private LeanExchange parsing() {
        synchronized (this) {
            return exchange;
        }
    }

    @Override
    public void startResponse(HttpVersion version, int status, String reason) {
        parsing().startResponse(version, status, reason);
    }

    @Override
    public void parsedHeader(HttpField field) {
        parsing().parsedHeader(field);
    }

    @Override
    public boolean headerComplete() {
        return parsing().headerComplete();
    }

    @Override
    public boolean content(ByteBuffer content) {
        return parsing().content(content);
    }

    @Override
    public boolean contentComplete() {
        return parsing().contentComplete();
    }

    @Override
    public boolean messageComplete() {
        return parsing().messageComplete();
    }

    @Override
    public void earlyEOF() {
        parsing().earlyEOF();
    }

    @Override
    public void badMessage(HttpException failure) {
        parsing().badMessage(failure);
    }

    @Override
    public void onClose(Throwable cause) {
        super.onClose(cause);
        pool.remove(this);
    }
}

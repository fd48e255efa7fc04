package io.sluice.server.front;

import io.sluice.engine.Decision;
import io.sluice.server.botauth.PublishedDirectory;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.EventListener;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HostPortHttpField;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Attributes;
import org.eclipse.jetty.util.StringUtil;

/**
 * A visitor's connection on the lean path: reads a request with Jetty's {@link HttpParser} (the listener's
 * own parsing rules), and when it is the common case (HTTP/1.1, origin-form target without anything Jetty
 * would have to judge, no upgrade, no {@code Expect}, no body or a small {@code Content-Length} one that has
 * fully arrived) asks the engine; an admitted request is forwarded by a {@link LeanExchange} on this thread.
 *
 * <p>In cluster mode the engine's decision may be pending on the shared store: the connection then waits for the
 * answer without a thread (it reads nothing meanwhile) and acts on it where the answer completes, Redis's I/O
 * thread, so an admission is forwarded on the lean path too. Nothing it does there blocks.
 *
 * <p>Anything else, including a malformed request and every decision but an admission, is handed
 * over to Jetty's HTTP connection with every byte read so far, from the first byte of that request, the way
 * Jetty's own protocol detection hands a connection over: Jetty parses the request again and answers it as it
 * would have without the lean path ({@link ThrottleHandler}, {@link UpstreamProxy}). A decision the engine
 * already made travels with the connection ({@link #PENDING_DECISION}), so the engine is asked once per request.
 * A connection handed over stays on Jetty's path.
 *
 * <p>Requests are served one at a time, in order: the next pipelined request is parsed only once the previous
 * response has been written.
 */
final class LeanConnection extends AbstractConnection.NonBlocking implements Connection.UpgradeFrom,
        HttpParser.RequestHandler {
    /** The connection attribute under which a decision made here waits for {@link ThrottleHandler}. */
    static final String PENDING_DECISION = LeanConnection.class.getName() + ".decision";
    /** Why this connection's read interest was withdrawn: it handed the socket over (not an error). */
    private static final Throwable HANDED_OVER =
            new Exception("handed over to Jetty's connection", null, false, false) { };

    private final LeanConnector connector;
    private final HttpConfiguration http;
    private final HttpConnectionFactory fallback;
    private final LeanForwarding forwarding;
    private final ByteBufferPool bufferPool;
    private final HttpParser parser;
    /** The deadlines of request heads and bodies (null: the connector has no {@link ConnectionGuard}). */
    private final RequestTimer timer;
    private final String peer;
    private UpstreamPool pool;

    /** The pooled input buffer, and a view of it no larger than Jetty's HTTP connection's (flush mode). */
    private volatile RetainableByteBuffer pooled;
    private static final VarHandle POOLED;

    static {
        try {
            POOLED = MethodHandles.lookup().findVarHandle(LeanConnection.class, "pooled", RetainableByteBuffer.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private ByteBuffer in;
    /** Where the request being parsed starts in {@link #in}. */
    private int requestStart;

    // The request being parsed.
    private String method;
    private String target;
    private HttpVersion version;
    private HttpFields.Mutable fields;
    private boolean headerComplete;
    private boolean messageComplete;
    private boolean malformed;
    private boolean vetted;
    private int bodyOffset;
    private HttpURI uri;

    private volatile LeanExchange exchange;
    /** A decision pending on the shared store (cluster mode): nothing more is read until it is acted on. */
    private volatile boolean awaiting;
    /**
     * Who serves: the thread that took it from zero runs the serving loop, and it alone touches the input buffer
     * and the parser; a call made meanwhile (more bytes, an exchange that ended, the connection closed) makes it go
     * round once more.
     */
    private final AtomicInteger serveCalls = new AtomicInteger();
    private volatile boolean handedOver;
    /** The last response said the connection closes: only the client's end of the stream is awaited. */
    private boolean closing;

    LeanConnection(LeanConnector connector, EndPoint endPoint, HttpConfiguration http, HttpConnectionFactory fallback,
                   LeanForwarding forwarding) {
        super(endPoint, connector.getExecutor());
        this.connector = connector;
        this.http = http;
        this.fallback = fallback;
        this.forwarding = forwarding;
        this.bufferPool = connector.getByteBufferPool();
        this.timer = ConnectionGuard.timerFor(connector, endPoint);
        this.parser = timer == null ? new HttpParser(this, http.getRequestHeaderSize(), http.getHttpCompliance())
                : new TimedHttpParser(this, http.getRequestHeaderSize(), http.getHttpCompliance(), timer);
        parser.setHeaderCacheSize(http.getHeaderCacheSize());
        parser.setHeaderCacheCaseSensitive(http.isHeaderCacheCaseSensitive());
        this.peer = peerAddress(endPoint.getRemoteSocketAddress());
    }

    /** The peer as Jetty's {@code Request.getRemoteAddr} gives it, so the engine sees the same string. */
    private static String peerAddress(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            return Request.getHostName(inet);
        }
        return remote == null ? null : remote.toString();
    }

    @Override
    public void onOpen() {
        // Before any read can parse the first request: its head is due from the opening.
        if (timer != null) {
            timer.opened();
        }
        super.onOpen();
        fillInterested();
    }

    @Override
    public void onFillable() {
        serve();
    }

    /**
     * Parses and serves requests until one is being forwarded, more bytes are needed, or the connection ends.
     * Called when bytes arrive and when an exchange ends, perhaps on another thread or from within this very
     * loop (an exchange that fails at once): one caller serves at a time, and a call made meanwhile makes it
     * go round once more.
     */
    private void serve() {
        if (serveCalls.getAndIncrement() != 0) {
            return;
        }
        int calls = 1;
        do {
            serveRequests();
            calls = serveCalls.addAndGet(-calls);
        } while (calls != 0);
    }

    private void serveRequests() {
        while (exchange == null && !handedOver && !awaiting) {
            if (!getEndPoint().isOpen()) {
                releaseBuffer(); // closed while no request was being forwarded (see onClose)
                return;
            }
            if (closing) {
                awaitClientClose();
                return;
            }
            if (in != null && (in.hasRemaining() || headerComplete)) {
                int before = in.position();
                boolean headerBefore = headerComplete;
                int limit = in.limit();
                parser.parseNext(in);
                if (malformed) {
                    // The parser empties the buffer when it refuses a message; Jetty's connection reads it again.
                    in.limit(limit);
                    handOver(null);
                    return;
                }
                if (headerComplete && !vetted) {
                    vetted = true;
                    if (!common()) {
                        handOver(null);
                        return;
                    }
                }
                if (messageComplete) {
                    dispatch();
                    continue;
                }
                if (in.position() != before || headerComplete != headerBefore) {
                    continue;
                }
            }
            if (isFillInterested()) {
                // Registered while the last request was forwarded and not fired since: nothing has arrived, so a
                // read would find nothing (as it did after most responses, a system call per request).
                return;
            }
            if (!fill()) {
                return;
            }
        }
    }

    /** Reads more of the request; false when there is nothing more to do now (waiting, handed over, closed). */
    private boolean fill() {
        if (pooled == null) {
            pooled = bufferPool.acquire(getInputBufferSize(), false);
            ByteBuffer whole = pooled.getByteBuffer();
            in = whole.capacity() > getInputBufferSize() ? whole.slice(0, getInputBufferSize()) : whole;
            in.limit(0);
            requestStart = 0;
        } else if (requestStart > 0 && in.limit() == in.capacity()) {
            compact();
        }
        if (in.limit() == in.capacity()) {
            // A request bigger than the buffer: Jetty's connection reads it in pieces.
            handOver(null);
            return false;
        }
        int filled;
        try {
            filled = getEndPoint().fill(in);
        } catch (IOException e) {
            getEndPoint().close(e);
            releaseBuffer();
            return false;
        }
        if (filled > 0) {
            return true;
        }
        if (!getEndPoint().isOpen()) {
            // That fill closed the endpoint (the end of the input after the output was shut): onClose, run within
            // it, left the buffer to this loop.
            releaseBuffer();
            return false;
        }
        boolean between = !in.hasRemaining() && parser.isStart() && in.position() == requestStart;
        if (filled == 0) {
            if (between) {
                releaseBuffer();
            }
            // The loop may go round twice (an exchange that ended on another thread meanwhile): one interest is enough.
            ReadInterest.ensure(this);
            return false;
        }
        if (between) {
            getEndPoint().close();
            releaseBuffer();
        } else {
            // The client stopped mid-request: Jetty answers that as it always has.
            handOver(null);
        }
        return false;
    }

    /** Moves the request being parsed to the start of the buffer. */
    private void compact() {
        int consumed = in.position() - requestStart;
        in.position(requestStart);
        in.compact();
        in.flip();
        in.position(consumed);
        requestStart = 0;
    }

    /**
     * True for the common case the lean path forwards; the rest is Jetty's to judge. What Jetty's HTTP
     * connection would check after parsing (the target's compliance, the Host) is checked here the same way, or
     * the request is handed over for Jetty to check.
     */
    private boolean common() {
        if (version != HttpVersion.HTTP_1_1 || target.isEmpty() || target.charAt(0) != '/'
                || HttpMethod.CONNECT.is(method)) {
            return false;
        }
        long contentLength = parser.getContentLength();
        if (contentLength > LeanForwarding.MAX_BODY_BYTES || parser.isChunking()) {
            return false;
        }
        HostPortHttpField host = null;
        for (HttpField field : fields) {
            HttpHeader header = field.getHeader();
            if (header == null) {
                continue;
            }
            switch (header) {
                case EXPECT, UPGRADE, TRANSFER_ENCODING, HTTP2_SETTINGS -> {
                    return false;
                }
                case HOST -> {
                    if (host != null) {
                        return false;
                    }
                    host = field instanceof HostPortHttpField hostPort ? hostPort
                            : new HostPortHttpField(field.getValue() == null ? "" : field.getValue());
                }
                case CONNECTION -> {
                    if (field.contains("upgrade")) {
                        return false;
                    }
                }
                default -> {
                }
            }
        }
        if (host == null || StringUtil.isBlank(host.getHostPort().getHost())) {
            return false;
        }
        uri = HttpURI.build(method, target);
        if (uri.hasViolations() || uri.getCanonicalPath() == null || uri.getPath() == null) {
            return false;
        }
        // Sluice's own pages (the browser check's pass, robots.txt, the fleet's key directory) are answered by Jetty's
        // path, never forwarded
        String canonical = uri.getCanonicalPath();
        if (canonical.startsWith(PassEndpoint.PREFIX) || RobotsReader.PATH.equals(canonical)
                || PublishedDirectory.PATH.equals(canonical)) {
            return false;
        }
        // A page that may get the trap's hidden link goes to the proxy path, which puts it in (TrapLink): the lean
        // path copies bodies untouched. Only while the policy asks for links, and for GETs only.
        if (HttpMethod.GET.is(method) && Boolean.TRUE.equals(
                forwarding.engine().policy().agents().trap().injectLinks())) {
            return false;
        }
        bodyOffset = in.position() - requestStart;
        return true;
    }

    /** A whole common request has arrived: the engine decides, and it is forwarded or handed over. */
    private void dispatch() {
        Decision decision = forwarding.engine().decide(EngineRequests.of(peer, fields,
                forwarding.engine().forwardedHeader(), method, uri.getCanonicalPath(), uri.getQuery(), uri.getPath(),
                null, false));
        if (decision instanceof Decision.Pending pending) {
            CompletableFuture<Decision> answer = pending.decision().toCompletableFuture();
            if (!answer.isDone()) {
                awaiting = true;
                // While the cluster answers, as while an exchange runs: no trip out of epoll and back per request
                keepReadInterest();
                // Acted on where its answer completes (Redis's I/O thread hands a call's answers out): no hand-off.
                answer.whenComplete((made, failure) -> answered(pending, made, failure));
                return;
            }
            decision = answer.isCompletedExceptionally() ? pending : answer.join();
        }
        act(decision, true);
    }

    /** The shared store answered (on Redis's I/O thread): act as on a decision made at once, without blocking. */
    private void answered(Decision.Pending pending, Decision made, Throwable failure) {
        if (!getEndPoint().isOpen()) {
            awaiting = false;
            release(made);
            releaseBuffer();
            return;
        }
        // Jetty's path writes the error for a store that failed; it never does (a missed deadline decides alone).
        // The socket stayed registered for reading while the store answered (dispatch).
        act(failure != null || made == null ? pending : made, false);
    }

    /** Acts on {@code decision}; {@code keepReading}: on the serving loop, which keeps the socket registered. */
    private void act(Decision decision, boolean keepReading) {
        if (!(decision instanceof Decision.Admit admit)) {
            handOver(decision);
            return;
        }
        ByteBuffer body = null;
        int bodyStart = requestStart + bodyOffset;
        if (in.position() > bodyStart) {
            body = in.duplicate();
            body.position(bodyStart);
            body.limit(in.position());
        }
        if (pool == null) {
            pool = connector.poolFor(getEndPoint());
        }
        boolean persistent = http.isPersistentConnectionsEnabled() && !fields.contains(HttpHeader.CONNECTION, "close")
                && !connector.isShutdown();
        LeanExchange started = new LeanExchange(this, forwarding, pool, admit, method, uri, fields, body, persistent);
        exchange = started;
        awaiting = false; // after the exchange is set: the serving loop must not read the next request meanwhile
        if (keepReading) {
            keepReadInterest();
        }
        started.start();
    }

    /**
     * Keeps the socket registered for reading while the request is forwarded. Jetty drops the read interest of a
     * socket that became readable; left dropped until the response is written, the JDK's selector takes the socket
     * out of epoll and puts it back for every request (two {@code epoll_ctl} calls and an allocation in the kernel).
     * Bytes that arrive meanwhile (a pipelined request, the client closing) only wake the serving loop, which reads
     * nothing while an exchange is under way.
     */
    private void keepReadInterest() {
        // The serving loop may register meanwhile, when the exchange ends at once.
        ReadInterest.ensure(this);
    }

    /** The exchange has written its whole response (or failed with the client connection cut). */
    void exchangeDone(LeanExchange done, boolean keepGoing) {
        if (exchange != done) {
            return;
        }
        if (!keepGoing) {
            // The connection was cut: the exchange stays, so nothing more is read from it.
            releaseBuffer();
            return;
        }
        nextRequest();
        exchange = null;
        serve();
    }

    /** After a response whose request asked for the connection's end: the output is shut, the rest discarded. */
    void closeAfterResponse() {
        closing = true;
        getEndPoint().shutdownOutput();
    }

    private void awaitClientClose() {
        try {
            while (true) {
                if (in == null) {
                    pooled = bufferPool.acquire(getInputBufferSize(), false);
                    in = pooled.getByteBuffer();
                }
                in.clear().limit(0);
                int filled = getEndPoint().fill(in);
                if (filled < 0) {
                    getEndPoint().close();
                    releaseBuffer();
                    return;
                }
                if (filled == 0) {
                    releaseBuffer();
                    ReadInterest.ensure(this);
                    return;
                }
            }
        } catch (IOException e) {
            getEndPoint().close(e);
            releaseBuffer();
        }
    }

    private void nextRequest() {
        parser.reset();
        method = null;
        target = null;
        version = null;
        fields = null;
        uri = null;
        headerComplete = false;
        messageComplete = false;
        vetted = false;
        bodyOffset = 0;
        if (in != null) {
            requestStart = in.position();
            if (!in.hasRemaining()) {
                releaseBuffer();
            }
        }
    }

    /** Gives the connection, and what it has read of the current request, to Jetty's HTTP/1.1 connection. */
    private void handOver(Decision pending) {
        handedOver = true;
        awaiting = false;
        withdrawReadInterest();
        Connection next = fallback.newConnection(connector, getEndPoint());
        if (pending != null && next instanceof Attributes attributes) {
            attributes.setAttribute(PENDING_DECISION, pending);
            next.addEventListener(new PendingRelease(attributes));
        }
        getEndPoint().upgrade(next);
    }

    /**
     * Jetty's connection registers for reading itself, and a second registration throws: one this connection kept
     * (while its request waited for the cluster's answer or was forwarded, with the next one already read) is
     * withdrawn, closing nothing ({@link #onFillInterestedFailed}).
     */
    private void withdrawReadInterest() {
        if (isFillInterested() && getEndPoint() instanceof AbstractEndPoint endPoint) {
            endPoint.getFillInterest().onFail(HANDED_OVER);
        }
    }

    @Override
    public void onFillInterestedFailed(Throwable cause) {
        if (cause != HANDED_OVER) {
            super.onFillInterestedFailed(cause);
        }
    }

    @Override
    public ByteBuffer onUpgradeFrom() {
        if (in == null) {
            return null;
        }
        in.position(requestStart);
        ByteBuffer rest = null;
        if (in.hasRemaining()) {
            rest = ByteBuffer.allocate(in.remaining());
            rest.put(in).flip();
        }
        releaseBuffer();
        return rest;
    }

    /**
     * Gives the input buffer back, once. Jetty runs {@link #onClose} on the selector's thread when the endpoint is
     * closed, which may be while the serving thread gives the same buffer back after closing it (seen in the demo:
     * "already released"), so the buffer is taken out of the field atomically and only its taker releases it.
     */
    private void releaseBuffer() {
        RetainableByteBuffer buffer = pooled;
        if (buffer != null && POOLED.compareAndSet(this, buffer, null)) {
            in = null;
            requestStart = 0;
            buffer.release();
        }
    }

    @Override
    public boolean onIdleExpired(TimeoutException timeout) {
        LeanExchange current = exchange;
        // While a request is served the client may be silent as long as the proxy path allows (a slow upstream).
        return current == null || current.silentLongerThan(forwarding.requestIdleMillis());
    }

    @Override
    public void onClose(Throwable cause) {
        super.onClose(cause);
        LeanExchange current = exchange;
        if (current != null) {
            current.clientClosed(cause);
        }
        if (!handedOver && exchange == null && !awaiting) {
            // Not released here: Jetty may run this on the selector's thread (an idle timeout) while the serving
            // thread parses in the buffer. The serving loop releases it, now or when the thread serving ends.
            // While awaiting, the request's bytes are the answer's to forward or let go.
            serve();
        }
    }

    /** This connection's request deadlines, which Jetty's connection keeps if it is handed over; null: none. */
    RequestTimer requestTimer() {
        return timer;
    }

    /** The client's address as Jetty reports it. */
    String peer() {
        return peer;
    }

    ByteBufferPool bufferPool() {
        return bufferPool;
    }

    HttpConfiguration httpConfiguration() {
        return http;
    }

    LeanConnector connector() {
        return connector;
    }

    // ---- HttpParser.RequestHandler ----

    @Override
    public void startRequest(String method, String target, HttpVersion version) {
        this.method = method;
        this.target = target;
        this.version = version;
        this.fields = HttpFields.build();
    }

    @Override
    public void parsedHeader(HttpField field) {
        fields.add(field);
    }

    @Override
    public boolean headerComplete() {
        headerComplete = true;
        // Paused, so the request is vetted before its body is read.
        return true;
    }

    @Override
    public boolean content(ByteBuffer content) {
        // The body stays where it is in the input buffer; it is forwarded from there.
        return false;
    }

    @Override
    public boolean contentComplete() {
        return false;
    }

    @Override
    public boolean messageComplete() {
        messageComplete = true;
        return true;
    }

    @Override
    public void earlyEOF() {
        malformed = true;
    }

    @Override
    public void badMessage(HttpException failure) {
        malformed = true;
    }

    /** Gives the engine back what a decision holds when nobody will act on it (the client left meanwhile). */
    private static void release(Decision left) {
        if (left instanceof Decision.Wait wait) {
            wait.deferral().cancel();
        } else if (left instanceof Decision.Admit admit) {
            admit.admission().complete(0, 0);
        }
    }

    /** Gives the engine its waiting place back if Jetty's connection ends before taking the decision. */
    private static final class PendingRelease implements Connection.Listener, EventListener {
        private final Attributes attributes;

        PendingRelease(Attributes attributes) {
            this.attributes = attributes;
        }

        @Override
        public void onClosed(Connection connection) {
            if (attributes.removeAttribute(PENDING_DECISION) instanceof Decision left) {
                release(left);
            }
        }
    }
}

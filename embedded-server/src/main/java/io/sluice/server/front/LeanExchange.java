package io.sluice.server.front;

import io.sluice.engine.Decision;
import io.sluice.engine.RequestCost;
import io.sluice.engine.RequestClass;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpGenerator;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;

/**
 * One admitted request on the lean path: sent to a pooled upstream connection, the response parsed with
 * Jetty's {@link HttpParser} and written to the client with Jetty's {@link HttpGenerator}, its body copied a
 * buffer at a time (the next read from the upstream waits for the last write to the client: a slow client
 * holds the upstream back instead of making Sluice buffer the download).
 *
 * <p>The rules are those of the proxy path ({@link UpstreamProxy}), reusing its pieces: {@link HopByHop} both
 * ways, {@link ForwardedHeaders} for the upstream, the upstream's {@code Date} and {@code Server} replacing
 * the front end's, rate-limit fields for bots ({@link RateLimitHeaders}); a request safe to repeat that met a
 * pooled connection closing before any response is sent once more on a new connection; an upstream that fails
 * before answering gives a 502 (a silent one, after the upstream timeout, a 504); one that fails mid-response
 * cuts the client's connection, so a truncated body is never passed off as complete. The engine hears of the
 * request once, when it ends, and the access log gets its line then.
 *
 * <p>Each step is driven by {@link #process()}: every asynchronous step (connect, upstream write, upstream read,
 * client write) resumes it through {@link #succeeded()}; a client write that fails, or the client's connection
 * closing, fails it, which cuts both connections.
 */
final class LeanExchange extends IteratingCallback {
    private static final int MAX_REQUEST_HEAD_BYTES = 64 * 1024;

    private enum Step { ACQUIRE, CONNECTING, SEND, SENDING, RECEIVE, DONE }

    private final LeanConnection client;
    private final EndPoint clientEndPoint;
    private final LeanForwarding forwarding;
    private final UpstreamPool pool;
    private final Decision.Admit admit;
    private final String method;
    private final HttpURI uri;
    private final HttpFields clientFields;
    private final ByteBuffer body;
    private final boolean head;
    private final ByteBufferPool buffers;
    private final HttpConfiguration http;
    private final long started = System.nanoTime();
    /** When the upstream's first response byte was parsed (an interim response's included); 0 before. */
    private long firstByte;
    private final HttpGenerator generator = new HttpGenerator();
    private final Callback sent = new SendCallback();

    private Step step = Step.ACQUIRE;
    private UpstreamConnection upstream;
    private boolean retried;
    private boolean freshConnection;
    private RetainableByteBuffer requestHead;
    /** A failure on the upstream side, left by a callback for {@link #process()} to judge. */
    private Throwable upstreamFailure;
    private volatile long lastActivity = System.nanoTime();

    // The response being read.
    private RetainableByteBuffer upstreamBuffer;
    private int upstreamStatus;
    private HttpVersion upstreamVersion;
    private HttpFields.Mutable upstreamFields;
    private boolean upstreamCloses;
    private boolean interimComplete;
    private boolean responseComplete;
    private Throwable responseFailure;
    private boolean sawEof;

    // The response being written.
    private MetaData.Response info;
    private int status;
    private ByteBuffer content;
    private boolean generatorDone;
    private boolean committed;
    private boolean shutdownOutput;
    private RetainableByteBuffer header;
    private RetainableByteBuffer chunk;
    private long bodyBytes;

    LeanExchange(LeanConnection client, LeanForwarding forwarding, UpstreamPool pool, Decision.Admit admit,
                 String method, HttpURI uri, HttpFields clientFields, ByteBuffer body, boolean persistent) {
        this.client = client;
        this.clientEndPoint = client.getEndPoint();
        this.forwarding = forwarding;
        this.pool = pool;
        this.admit = admit;
        this.method = method;
        this.uri = uri;
        this.clientFields = clientFields;
        this.body = body;
        this.head = HttpMethod.HEAD.is(method);
        this.buffers = client.bufferPool();
        this.http = client.httpConfiguration();
        generator.setPersistent(persistent);
    }

    void start() {
        iterate();
    }

    @Override
    public InvocationType getInvocationType() {
        // Nothing here blocks: completions run on the selector thread that saw the I/O.
        return InvocationType.NON_BLOCKING;
    }

    /** True when neither connection has moved for {@code millis}. */
    boolean silentLongerThan(long millis) {
        return System.nanoTime() - lastActivity > millis * 1_000_000L;
    }

    /** The client's connection closed under the exchange. */
    void clientClosed(Throwable cause) {
        abort(cause == null ? new EofException("client closed") : cause);
    }

    // ---- called by the pool and the upstream connection, each resuming a SCHEDULED step ----

    void connected(UpstreamConnection connection) {
        upstream = connection;
        connection.attach(this, head);
        succeeded();
    }

    void connectFailed(Throwable failure) {
        upstreamFailure = failure;
        succeeded();
    }

    /** The upstream connection is readable after {@link UpstreamConnection#demand} (or failed: {@code failure}). */
    void upstreamReadable(Throwable failure) {
        if (failure != null) {
            upstreamFailure = failure;
        }
        succeeded();
    }

    @Override
    protected Action process() throws Throwable {
        lastActivity = System.nanoTime();
        while (true) {
            switch (step) {
                case ACQUIRE -> {
                    UpstreamConnection idle = freshConnection ? null : pool.acquire();
                    if (idle != null) {
                        upstream = idle;
                        idle.attach(this, head);
                        step = Step.SEND;
                    } else {
                        step = Step.CONNECTING;
                        pool.connect(this);
                        return Action.SCHEDULED;
                    }
                }
                case CONNECTING -> {
                    if (upstreamFailure != null) {
                        // Nothing was sent: the upstream is down or refuses connections.
                        upstreamBroken(takeUpstreamFailure(), false);
                    } else {
                        step = Step.SEND;
                    }
                }
                case SEND -> {
                    if (requestHead == null) {
                        requestHead = generateRequest();
                    }
                    step = Step.SENDING;
                    ByteBuffer headBytes = requestHead.getByteBuffer().duplicate();
                    if (body != null) {
                        upstream.getEndPoint().write(sent, headBytes, body.duplicate());
                    } else {
                        upstream.getEndPoint().write(sent, headBytes);
                    }
                    return Action.SCHEDULED;
                }
                case SENDING -> {
                    if (upstreamFailure != null) {
                        upstreamBroken(takeUpstreamFailure(), true);
                    } else {
                        step = Step.RECEIVE;
                        // The answer cannot be there yet: wait for it rather than try a read that finds nothing.
                        upstream.demand();
                        return Action.SCHEDULED;
                    }
                }
                case RECEIVE -> {
                    Action action = receive();
                    if (action != null) {
                        return action;
                    }
                }
                case DONE -> {
                    return Action.SUCCEEDED;
                }
                default -> throw new IllegalStateException(step.name());
            }
        }
    }

    /** One step of reading the response and writing it on; null to go round again. */
    private Action receive() throws Throwable {
        if (info != null && !generatorDone && (content != null || responseComplete)) {
            return flush();
        }
        if (generatorDone) {
            if (responseComplete || upstream == null) {
                step = Step.DONE;
                return null;
            }
            // Written whole before the parser said so (a body framed by its length): the parser ends it now.
        }
        if (upstreamFailure != null) {
            upstreamBroken(takeUpstreamFailure(), true);
            return null;
        }
        if (upstreamBuffer == null) {
            upstreamBuffer = buffers.acquire(LeanForwarding.UPSTREAM_BUFFER_BYTES, false);
        }
        ByteBuffer buffer = upstreamBuffer.getByteBuffer();
        HttpParser parser = upstream.parser();
        int before = buffer.position();
        boolean paused = parser.parseNext(buffer);
        if (responseFailure != null) {
            Throwable failure = responseFailure;
            responseFailure = null;
            upstreamBroken(failure, true);
            return null;
        }
        if (interimComplete) {
            // A 1xx before the final response: not passed on (as nginx and the proxy's client do).
            interimComplete = false;
            parser.reset();
            parser.setHeadResponse(head);
            upstreamStatus = 0;
            upstreamFields = null;
            return null;
        }
        if (content != null || responseComplete || paused || buffer.position() != before) {
            return null;
        }
        if (sawEof) {
            // The parser had the end of the stream and said neither "complete" nor "early": still a broken answer.
            upstreamBroken(new EofException("upstream closed"), true);
            return null;
        }
        if (buffer.hasRemaining()) {
            BufferUtil.compact(buffer);
        } else {
            BufferUtil.clear(buffer);
        }
        int filled;
        try {
            filled = upstream.getEndPoint().fill(buffer);
        } catch (IOException failure) {
            upstreamBroken(failure, true);
            return null;
        }
        if (filled > 0) {
            return null;
        }
        if (filled < 0) {
            sawEof = true;
            parser.atEOF();
            return null;
        }
        upstream.demand();
        return Action.SCHEDULED;
    }

    /** Generates the client's response head, chunk framing and body with Jetty's generator and writes them. */
    private Action flush() throws IOException {
        boolean last = responseComplete || content != null && wholeBodyRead();
        while (true) {
            ByteBuffer headerBytes = header == null ? null : header.getByteBuffer();
            ByteBuffer chunkBytes = chunk == null ? null : chunk.getByteBuffer();
            HttpGenerator.Result result = generator.generateResponse(committed ? null : info, head, headerBytes,
                    chunkBytes, content, last);
            switch (result) {
                case NEED_HEADER -> header = buffers.acquire(Math.min(http.getResponseHeaderSize(),
                        http.getOutputBufferSize()), false);
                case HEADER_OVERFLOW -> {
                    if (header.capacity() >= http.getResponseHeaderSize()) {
                        throw new HttpException.RuntimeException(HttpStatus.INTERNAL_SERVER_ERROR_500,
                                "Response header too large");
                    }
                    header.release();
                    header = buffers.acquire(http.getResponseHeaderSize(), false);
                }
                case NEED_CHUNK -> chunk = buffers.acquire(HttpGenerator.CHUNK_SIZE, false);
                case NEED_CHUNK_TRAILER -> {
                    if (chunk != null) {
                        chunk.release();
                    }
                    chunk = buffers.acquire(http.getResponseHeaderSize(), false);
                }
                case FLUSH -> {
                    committed = true;
                    if (head || generator.isNoContent()) {
                        BufferUtil.clear(chunkBytes);
                        BufferUtil.clear(content);
                    }
                    return write(headerBytes, chunkBytes, content);
                }
                case SHUTDOWN_OUT -> shutdownOutput = true;
                case DONE -> {
                    content = null;
                    if (last) {
                        generatorDone = true;
                    }
                    return null;
                }
                case CONTINUE -> {
                }
                default -> throw new IllegalStateException("generateResponse=" + result);
            }
        }
    }

    private Action write(ByteBuffer headerBytes, ByteBuffer chunkBytes, ByteBuffer contentBytes) {
        boolean hasHeader = BufferUtil.hasContent(headerBytes);
        boolean hasChunk = BufferUtil.hasContent(chunkBytes);
        boolean hasContent = BufferUtil.hasContent(contentBytes);
        if (hasContent) {
            bodyBytes += contentBytes.remaining();
        }
        int gather = (hasHeader ? 4 : 0) + (hasChunk ? 2 : 0) + (hasContent ? 1 : 0);
        switch (gather) {
            case 7 -> clientEndPoint.write(this, headerBytes, chunkBytes, contentBytes);
            case 6 -> clientEndPoint.write(this, headerBytes, chunkBytes);
            case 5 -> clientEndPoint.write(this, headerBytes, contentBytes);
            case 4 -> clientEndPoint.write(this, headerBytes);
            case 3 -> clientEndPoint.write(this, chunkBytes, contentBytes);
            case 2 -> clientEndPoint.write(this, chunkBytes);
            case 1 -> clientEndPoint.write(this, contentBytes);
            default -> succeeded();
        }
        return Action.SCHEDULED;
    }

    /** True when the body framed by a {@code Content-Length} has been read to its end. */
    private boolean wholeBodyRead() {
        if (upstream == null) {
            return false;
        }
        HttpParser parser = upstream.parser();
        long length = parser.getContentLength();
        return !parser.isChunking() && length >= 0 && parser.getContentRead() >= length;
    }

    /**
     * The upstream connection failed. Before any response began, a request safe to repeat is sent once more on
     * a new connection, else the client gets a 502 (504 after the upstream timeout); after the response began
     * the client's connection is cut.
     */
    private void upstreamBroken(Throwable failure, boolean sent) throws Throwable {
        UpstreamConnection broken = upstream;
        upstream = null;
        if (broken != null) {
            broken.detach(this);
            broken.close();
        }
        boolean timeout = failure instanceof TimeoutException;
        boolean nothingReceived = upstreamStatus == 0 && info == null && !committed;
        if (sent && !retried && !timeout && nothingReceived && body == null && idempotent(method)) {
            retried = true;
            freshConnection = true;
            sawEof = false;
            upstreamFields = null;
            releaseUpstreamBuffer();
            step = Step.ACQUIRE;
            return;
        }
        if (!committed) {
            forwarding.upstreamErrors().count(timeout ? UpstreamErrors.Reason.TIMEOUT
                    : sent ? UpstreamErrors.Reason.BROKEN : UpstreamErrors.Reason.CONNECT);
            answerWithError(timeout ? HttpStatus.GATEWAY_TIMEOUT_504 : HttpStatus.BAD_GATEWAY_502);
            return;
        }
        throw failure;
    }

    /** The front end's own 502 or 504: the upstream's answer, if any began to arrive, is dropped. */
    private void answerWithError(int code) {
        releaseUpstreamBuffer();
        String reason = HttpStatus.getMessage(code);
        byte[] page = ("<html>\n<head>\n<meta http-equiv=\"Content-Type\" content=\"text/html;charset=ISO-8859-1\"/>\n"
                + "<title>Error " + code + " " + reason + "</title>\n</head>\n<body>\n<h2>HTTP ERROR " + code + " "
                + reason + "</h2>\n</body>\n</html>\n").getBytes(StandardCharsets.ISO_8859_1);
        HttpFields.Mutable fields = HttpFields.build(6);
        if (http.getSendDateHeader()) {
            fields.add(client.connector().getServer().getDateField());
        }
        if (admit.client().requestClass() == RequestClass.BOT) {
            RateLimitHeaders.apply(fields, admit.rateLimit());
        }
        fields.put(HttpHeader.CACHE_CONTROL, "must-revalidate,no-cache,no-store");
        fields.put(HttpHeader.CONTENT_TYPE, "text/html;charset=iso-8859-1");
        status = code;
        info = new MetaData.Response(code, null, HttpVersion.HTTP_1_1, fields, page.length);
        content = head ? null : ByteBuffer.wrap(page);
        responseComplete = true;
        step = Step.RECEIVE;
    }

    private RetainableByteBuffer generateRequest() throws IOException {
        HttpFields.Mutable fields = HttpFields.build(clientFields.size() + 6);
        HopByHop hopByHop = HopByHop.of(clientFields);
        String policyHeader = forwarding.engine().forwardedHeader();
        for (HttpField field : clientFields) {
            if (!hopByHop.strips(field) && !ForwardedHeaders.isClientClaim(field, policyHeader)) {
                fields.add(field);
            }
        }
        forwarding.forwarded().add(clientFields, fields, clientPeer(), admit.client().ip(), false,
                HttpVersion.HTTP_1_1, policyHeader);
        String path = forwarding.basePath().isEmpty() ? uri.getPath() : forwarding.basePath() + uri.getPath();
        String query = uri.getQuery();
        if (query != null) {
            path = path + "?" + query;
        }
        MetaData.Request request = new MetaData.Request(method, HttpURI.from(path), HttpVersion.HTTP_1_1, fields,
                body == null ? -1 : body.remaining());
        int size = 4096;
        while (true) {
            HttpGenerator requestGenerator = new HttpGenerator();
            RetainableByteBuffer bytes = buffers.acquire(size, false);
            HttpGenerator.Result result = requestGenerator.generateRequest(request, bytes.getByteBuffer(), null,
                    body == null ? null : body.duplicate(), true);
            if (result == HttpGenerator.Result.FLUSH) {
                return bytes;
            }
            bytes.release();
            if (result != HttpGenerator.Result.HEADER_OVERFLOW || size >= MAX_REQUEST_HEAD_BYTES) {
                throw new IOException("cannot generate the upstream request: " + result);
            }
            size = MAX_REQUEST_HEAD_BYTES;
        }
    }

    private String clientPeer() {
        return client.peer();
    }

    private Throwable takeUpstreamFailure() {
        Throwable failure = upstreamFailure;
        upstreamFailure = null;
        return failure;
    }

    private static boolean idempotent(String method) {
        HttpMethod known = HttpMethod.fromString(method);
        return known != null && known.isIdempotent();
    }

    // ---- completion ----

    @Override
    protected void onCompleteSuccess() {
        UpstreamConnection used = upstream;
        upstream = null;
        if (used != null) {
            boolean reusable = responseComplete && !upstreamCloses && upstreamVersion == HttpVersion.HTTP_1_1
                    && used.parser().isState(HttpParser.State.END) && !BufferUtil.hasContent(upstreamBuffer == null
                    ? null : upstreamBuffer.getByteBuffer());
            used.detach(this);
            if (reusable) {
                pool.release(used);
            } else {
                used.close();
            }
        }
        releaseBuffers();
        finish(status);
        if (shutdownOutput || !generator.isPersistent()) {
            client.closeAfterResponse();
        }
        client.exchangeDone(this, true);
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        UpstreamConnection used = upstream;
        upstream = null;
        if (used != null) {
            used.detach(this);
            used.close();
        }
        // The client's connection is cut: a response that began is never passed off as complete.
        clientEndPoint.close(cause);
        releaseBuffers();
        finish(status == 0 ? HttpStatus.BAD_GATEWAY_502 : status);
        client.exchangeDone(this, false);
    }

    private void finish(int reported) {
        long upstreamNanos = System.nanoTime() - started;
        admit.admission().complete(reported, upstreamNanos, new RequestCost(firstByte == 0 ? -1 : firstByte - started,
                upstreamNanos, body == null ? 0 : body.remaining(), bodyBytes));
        AccessLog log = forwarding.accessLog();
        if (log != null) {
            log.log(admit.client().ip(), forwarding.clock().instant(), method, uri.getPathQuery(),
                    HttpVersion.HTTP_1_1.asString(), reported, bodyBytes, clientFields.get(HttpHeader.REFERER),
                    clientFields.get(HttpHeader.USER_AGENT), "ADMIT");
        }
    }

    private void releaseBuffers() {
        if (requestHead != null) {
            requestHead.release();
            requestHead = null;
        }
        if (header != null) {
            header.release();
            header = null;
        }
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
        releaseUpstreamBuffer();
    }

    private void releaseUpstreamBuffer() {
        if (upstreamBuffer != null) {
            upstreamBuffer.release();
            upstreamBuffer = null;
        }
    }

    // ---- the upstream's response, as its connection's parser reads it ----

    void startResponse(HttpVersion version, int code, String reason) {
        if (firstByte == 0) {
            firstByte = System.nanoTime();
        }
        upstreamVersion = version;
        upstreamStatus = code;
        upstreamFields = HttpFields.build(16);
        upstreamCloses = false;
    }

    void parsedHeader(HttpField field) {
        upstreamFields.add(field);
        if (field.getHeader() == HttpHeader.CONNECTION && field.contains("close")) {
            upstreamCloses = true;
        }
    }

    boolean headerComplete() {
        if (HttpStatus.isInformational(upstreamStatus)) {
            if (upstreamStatus == HttpStatus.SWITCHING_PROTOCOLS_101) {
                responseFailure = new IOException("the upstream switched protocols unasked");
                return true;
            }
            return false;
        }
        HttpFields.Mutable fields = HttpFields.build(upstreamFields.size() + 3);
        if (http.getSendDateHeader()) {
            fields.add(client.connector().getServer().getDateField());
        }
        if (admit.client().requestClass() == RequestClass.BOT) {
            RateLimitHeaders.apply(fields, admit.rateLimit());
        }
        HopByHop hopByHop = HopByHop.of(upstreamFields);
        for (HttpField field : upstreamFields) {
            if (hopByHop.strips(field)) {
                continue;
            }
            HttpHeader name = field.getHeader();
            if (name == HttpHeader.DATE || name == HttpHeader.SERVER) {
                fields.put(field);
            } else {
                fields.add(field);
            }
        }
        status = upstreamStatus;
        info = new MetaData.Response(upstreamStatus, null, HttpVersion.HTTP_1_1, fields, -1);
        return false;
    }

    boolean content(ByteBuffer slice) {
        content = slice;
        // Paused: this slice is written to the client before the upstream is read any further.
        return true;
    }

    boolean contentComplete() {
        return false;
    }

    boolean messageComplete() {
        if (HttpStatus.isInformational(upstreamStatus)) {
            interimComplete = true;
        } else {
            responseComplete = true;
        }
        return true;
    }

    void earlyEOF() {
        responseFailure = new EofException("the upstream closed mid-response");
    }

    void badMessage(HttpException failure) {
        responseFailure = new IOException("the upstream's response is malformed: " + failure.getReason());
    }

    /** Resumes the exchange when the request has been written to the upstream (or could not be). */
    private final class SendCallback implements Callback {
        @Override
        public void succeeded() {
            LeanExchange.this.succeeded();
        }

        @Override
        public void failed(Throwable failure) {
            upstreamFailure = failure;
            LeanExchange.this.succeeded();
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }
}

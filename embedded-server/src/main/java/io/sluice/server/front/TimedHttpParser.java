package io.sluice.server.front;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpParser;

/**
 * Jetty's request parser, telling a {@link RequestTimer} after each parse what of the request is still awaited: a
 * head begun and not complete, or a body being read (a parse that began in the body: the reader asked for it) and
 * not complete. A body nobody reads yet (the request waits for the engine, a deferral) is on no deadline.
 */
final class TimedHttpParser extends HttpParser {
    private final RequestTimer timer;

    TimedHttpParser(RequestHandler handler, int maxHeaderBytes, HttpCompliance compliance, RequestTimer timer) {
        super(handler, maxHeaderBytes, compliance);
        this.timer = timer;
    }

    @Override
    public boolean parseNext(ByteBuffer buffer) {
        boolean readingBody = inContentState();
        boolean handle = super.parseNext(buffer);
        if (inHeaderState()) {
            // At the start with nothing read: between requests (or before the first, already timed from the opening).
            if (!isStart()) {
                timer.headUnderway();
            }
        } else if (readingBody && inContentState()) {
            timer.bodyUnderway(getContentRead());
        } else {
            timer.idle();
        }
        return handle;
    }
}

package io.sluice.server;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * Runs a handler that may block (file writes, waits) on the server's thread pool, so that the server as a
 * whole can declare itself non-blocking. Jetty decides per server whether a request may be handled on
 * the thread that read it: one blocking handler anywhere in the tree (the admin API) would otherwise send
 * every public request through a thread hand-off as well.
 */
final class DispatchedHandler extends Handler.Wrapper {
    DispatchedHandler(Handler blocking) {
        super(blocking);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        request.getComponents().getExecutor().execute(() -> {
            try {
                if (!super.handle(request, response, callback)) {
                    Response.writeError(request, response, callback, 404);
                }
            } catch (Throwable failure) {
                Response.writeError(request, response, callback, failure);
            }
        });
        return true;
    }

    @Override
    public Invocable.InvocationType getInvocationType() {
        return Invocable.InvocationType.NON_BLOCKING;
    }
}

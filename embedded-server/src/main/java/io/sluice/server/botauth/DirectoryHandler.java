package io.sluice.server.botauth;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves the fleet's {@link PublishedDirectory} at its well-known path, in front of the throttle; every other request
 * goes on to the handler it wraps.
 */
public final class DirectoryHandler extends Handler.Wrapper {

    private final PublishedDirectory directory;

    public DirectoryHandler(PublishedDirectory directory, Handler next) {
        super(next);
        this.directory = directory;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (PublishedDirectory.PATH.equals(request.getHttpURI().getCanonicalPath())) {
            directory.answer(request, response, callback);
            return true;
        }
        return super.handle(request, response, callback);
    }
}

package io.sluice.server.admin;

import java.util.List;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Every path the admin API's own routes do not map: the extra handlers mounted by other rooms (each
 * answers its own paths and returns false for the rest), then 404. They run behind the same host check,
 * size limit and authentication as the rest: a {@code read} token may {@code GET} them, only {@code admin}
 * may change anything.
 */
final class OtherRoutes extends Handler.AbstractContainer {
    private final List<Handler> extra;

    OtherRoutes(List<Handler> extra) {
        this.extra = List.copyOf(extra);
        this.extra.forEach(handler -> addBean(handler, true));
    }

    @Override
    public List<Handler> getHandlers() {
        return extra;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        for (Handler handler : extra) {
            if (handler.handle(request, response, callback)) {
                return true;
            }
        }
        return ApiMessages.error(response, callback, 404, "no such path: " + request.getHttpURI().getPath());
    }
}

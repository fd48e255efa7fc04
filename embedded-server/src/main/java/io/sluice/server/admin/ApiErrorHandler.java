package io.sluice.server.admin;

import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.server.change.ChangeNotSavedException;
import io.sluice.server.change.PolicyConflict;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Turns what a resource refuses, and a path no route maps, into the API's JSON errors, in one place. */
final class ApiErrorHandler extends Handler.Wrapper {

    ApiErrorHandler(Handler next) {
        super(next);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        try {
            return super.handle(request, response, callback)
                    || ApiMessages.error(response, callback, 404, "no such path: " + request.getHttpURI().getPath());
        } catch (ApiError e) {
            return ApiMessages.json(response, callback, e.status, Map.of("errors", e.errors));
        } catch (PolicyValidationException e) {
            return ApiMessages.json(response, callback, 400, Map.of("errors", e.errors()));
        } catch (PolicyConflict e) {
            response.getHeaders().put(HttpHeader.ETAG, ApiMessages.etag(e.currentVersion()));
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("error", e.getMessage());
            body.put("currentVersion", e.currentVersion());
            body.put("conflicts", e.fields());
            return ApiMessages.json(response, callback, 412, body);
        } catch (ChangeNotSavedException e) {
            return ApiMessages.error(response, callback, 503, e.getMessage());
        }
    }
}

package io.sluice.server.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.engine.policy.PolicyJson;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/cluster} (the fleet: every node and the cluster's totals) and {@code GET /api/v1/health}
 * (this node's state in the cluster). Mounted behind the admin API's authentication; any other path is
 * left to the next handler.
 */
public final class ClusterHandler extends Handler.Abstract {
    static final String CLUSTER = "/api/v1/cluster";
    static final String HEALTH = "/api/v1/health";

    private final Supplier<ClusterNode> node;

    /** @param node the node, once it has started (null before: the paths answer 503) */
    public ClusterHandler(Supplier<ClusterNode> node) {
        this.node = node;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = request.getHttpURI().getPath();
        if (!CLUSTER.equals(path) && !HEALTH.equals(path)) {
            return false;
        }
        if (!"GET".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET");
            return json(response, callback, 405, Map.of("error", request.getMethod()
                    + " is not allowed here; use GET"));
        }
        ClusterNode started = node.get();
        if (started == null) {
            return json(response, callback, 503, Map.of("error", "the cluster node is still starting"));
        }
        // The fleet view reads Redis (within the admin deadline); health reads memory only.
        return CLUSTER.equals(path) ? json(response, callback, 200, started.view())
                : json(response, callback, 200, started.health());
    }

    private static boolean json(Response response, Callback callback, int status, Object body)
            throws JsonProcessingException {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        Content.Sink.write(response, true, PolicyJson.mapper().writeValueAsString(body), callback);
        return true;
    }
}

package io.sluice.server.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.admin.Access;
import io.sluice.server.admin.Resource;
import io.sluice.server.admin.Route;
import io.sluice.server.state.Role;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/cluster} (the fleet: every node and the cluster's totals) and {@code GET /api/v1/health}
 * (this node's state in the cluster), open to {@code read}. Mounted in the admin API by {@link #routes}, behind
 * its authentication.
 */
public final class ClusterHandler extends Resource {
    private final Supplier<ClusterNode> node;
    private final Function<ClusterNode, Object> view;

    private ClusterHandler(Supplier<ClusterNode> node, Function<ClusterNode, Object> view) {
        super(Access.of("GET", Role.READ));
        this.node = node;
        this.view = view;
    }

    /** @param node the node, once it has started (null before: the paths answer 503) */
    public static List<Route> routes(Supplier<ClusterNode> node) {
        // The fleet view reads Redis (within the admin deadline); health reads memory only.
        return List.of(Route.api("cluster", new ClusterHandler(node, ClusterNode::view)),
                Route.api("health", new ClusterHandler(node, ClusterNode::health)));
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        ClusterNode started = node.get();
        if (started == null) {
            return json(response, callback, 503, Map.of("error", "the cluster node is still starting"));
        }
        return json(response, callback, 200, view.apply(started));
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

package io.sluice.server.demo;

import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import java.util.List;

/**
 * {@code sluice-server --demo} and {@code --demo-traffic} on one node: the demo site as the upstream of a front end,
 * and with traffic the demo's story against it (its crawlers declared verified first) and a crawler fleet on the
 * permit API. The demo builds on the server, which knows nothing of it (docs/architecture.md, "Composition").
 */
public final class Demo {
    private static final int SITE_THREADS = 16;

    private Demo() {
    }

    /**
     * Starts a front end as {@code config} says, with the demo's parts it asks for, which close with it: with
     * {@link ServerConfig#demo()} the demo site as its upstream (in place of any other); with
     * {@link ServerConfig#demoTraffic()} the story and the crawler fleet.
     */
    public static SluiceServer start(ServerConfig config) throws Exception {
        DemoUpstream site = config.demo() ? DemoUpstream.start(SITE_THREADS) : null;
        SluiceServer server;
        try {
            server = SluiceServer.start(site == null ? config : config.withUpstream(site.uri()));
        } catch (Exception | Error e) {
            if (site != null) {
                site.close();
            }
            throw e;
        }
        if (site != null) {
            server.closeLast(site);
        }
        if (config.demoTraffic()) {
            try {
                DemoScenario.verifyCrawlers(server.policyChanges());
                server.closeFirst(DemoScenario.start(List.of(server.frontUri()), site == null ? null : site.pages(),
                        DemoScenario.DEFAULT_PHASE));
                server.closeFirst(DemoCrawlers.start(server.adminUri(), server.state().workerToken()));
            } catch (Exception | Error e) {
                server.close();
                throw e;
            }
        }
        return server;
    }
}

package io.sluice.server.testkit;

import io.sluice.server.Main;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import picocli.CommandLine;

/**
 * {@code sluice-server --demo} for the server's tests: the front end with the {@link TestSite} behind it where the
 * demo module's DemoMain puts the demo site (the server jar refuses {@code --demo}; the server's tests cannot use the
 * demo module, which builds on the server). Demo traffic is the demo's alone, so it is refused here.
 */
public final class TestSiteServer {
    private static final int SITE_THREADS = 16;

    private TestSiteServer() {
    }

    /** A front end as {@code config} says; with {@link ServerConfig#demo()} the test site as its upstream. */
    public static SluiceServer start(ServerConfig config) throws Exception {
        if (config.demoTraffic()) {
            throw new IllegalArgumentException("demo traffic is the demo module's (io.sluice.server.demo.Demo)");
        }
        if (!config.demo()) {
            return SluiceServer.start(config);
        }
        TestSite site = TestSite.start(SITE_THREADS);
        SluiceServer server;
        try {
            server = SluiceServer.start(config.withUpstream(site.uri()));
        } catch (Exception | Error e) {
            site.close();
            throw e;
        }
        server.closeLast(site);
        return server;
    }

    /** {@code sluice-server}'s command line with this start. */
    public static CommandLine commandLine() {
        return Main.commandLine(TestSiteServer::start);
    }

    /** {@code sluice-server} in a process of its own, as a test runs it ({@code java -cp ... TestSiteServer ARGS}). */
    public static void main(String[] args) {
        Main.runAndExit(args, TestSiteServer::commandLine);
    }
}

package io.sluice.server.admin;

import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** A server started by a test and closed after it: {@code @RegisterExtension final ServerPerTest servers = ...}. */
final class ServerPerTest implements AfterEachCallback {
    private SluiceServer server;

    SluiceServer start(ServerConfig config) throws Exception {
        server = Demo.start(config);
        return server;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}

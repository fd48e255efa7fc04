package io.sluice.server.testkit;

import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The servers a test starts, closed after it, last started first: the one way a test starts and stops a server.
 *
 * <p>{@code @RegisterExtension final Servers servers = new Servers();} closes after each test what the test (or its
 * {@code @BeforeEach}) started. Registered on a {@code static} field, what {@code @BeforeAll} started is closed after
 * the class, and what a test started still after that test. {@link #add} takes anything else that must close with
 * them (a Redis, a server started without the test site); registered before the servers, it closes after them.
 */
public final class Servers implements BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    private final Deque<AutoCloseable> forTheClass = new ArrayDeque<>();
    private final Deque<AutoCloseable> forTheTest = new ArrayDeque<>();
    private boolean inTest;

    /** A server; for {@link ServerConfig#demo} with the {@link TestSite} as its upstream ({@link TestSiteServer}). */
    public SluiceServer start(ServerConfig config) throws Exception {
        return add(TestSiteServer.start(config));
    }

    /** Closes {@code resource} with the servers, in reverse order of adding. */
    public <T extends AutoCloseable> T add(T resource) {
        (inTest ? forTheTest : forTheClass).push(resource);
        return resource;
    }

    /** Closes one server now (a test that restarts it), so that it is not closed twice. */
    public void stop(SluiceServer server) {
        forTheTest.remove(server);
        forTheClass.remove(server);
        server.close();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        inTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        inTest = false;
        closeAll(forTheTest);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        closeAll(forTheClass);
    }

    private static void closeAll(Deque<AutoCloseable> open) throws Exception {
        Exception failure = null;
        for (AutoCloseable resource = open.poll(); resource != null; resource = open.poll()) {
            try {
                resource.close();
            } catch (Exception e) {
                // Everything else still closes; the first failure fails the test.
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}

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
 *
 * <p>The server module's tests start a server with the {@link TestSite} behind it; the demo module's start the demo's
 * site and traffic instead: {@code new Servers(Demo::start)}.
 */
public final class Servers implements BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    private final Starter starter;
    private final Deque<AutoCloseable> forTheClass = new ArrayDeque<>();
    private final Deque<AutoCloseable> forTheTest = new ArrayDeque<>();
    private boolean inTest;

    /** How {@link #start} starts a server from its configuration. */
    @FunctionalInterface
    public interface Starter {
        SluiceServer start(ServerConfig config) throws Exception;
    }

    /** Servers started with the {@link TestSite} as their upstream ({@link TestSiteServer#start}). */
    public Servers() {
        this(TestSiteServer::start);
    }

    /** Servers started by {@code starter} (the demo's tests: {@code Demo::start}). */
    public Servers(Starter starter) {
        this.starter = starter;
    }

    /** A server, started as this extension was told (by default for {@link ServerConfig#demo}, the test site). */
    public SluiceServer start(ServerConfig config) throws Exception {
        return add(starter.start(config));
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

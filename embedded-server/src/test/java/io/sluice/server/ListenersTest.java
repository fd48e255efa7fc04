package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Policy;
import io.sluice.server.admin.AdminConnections;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * A request Sluice makes wait is never cut by its connection's idle timeout: on the handler paths Jetty keeps that
 * promise by itself (docs/manual/command-line.md, "Limits against a hostile or careless client"), and this holds it
 * to it, whether the wait is asynchronous (a delay, a deferral, a held permit call) or holds a thread, while the
 * same timeout closes a connection that sends nothing.
 */
class ListenersTest {
    private static final long IDLE_MILLIS = 300;
    private static final long WAIT_MILLIS = 5 * IDLE_MILLIS;

    @Test
    void anAdminRequestHeldAsynchronouslyFiveIdleTimeoutsIsAnswered() throws Exception {
        assertAnsweredAfterWaiting(admin(), asynchronousWait());
    }

    @Test
    void anAdminRequestHoldingItsThreadFiveIdleTimeoutsIsAnswered() throws Exception {
        assertAnsweredAfterWaiting(admin(), blockingWait());
    }

    @Test
    void aPublicRequestHeldAsynchronouslyFiveIdleTimeoutsIsAnswered() throws Exception {
        assertAnsweredAfterWaiting(front(), asynchronousWait());
    }

    @Test
    void yetAConnectionThatSendsNothingIsClosedAfterTheIdleTimeout() throws Exception {
        Server server = Listeners.adminServer(ConnectionLimits.DEFAULTS);
        // strangers given a minute: within it, only the idle timeout closes this connection
        ServerConnector connector = Listeners.admin(server, new HostPort("127.0.0.1", 0), ConnectionLimits.DEFAULTS,
                null, new AdminConnections.Rules(16, Duration.ofSeconds(60)));
        connector.setIdleTimeout(IDLE_MILLIS);
        server.setHandler(asynchronousWait());
        server.start();
        try (Socket idle = new Socket("127.0.0.1", connector.getLocalPort())) {
            idle.setSoTimeout(30_000);
            long start = System.nanoTime();

            assertThat(idle.getInputStream().read()).as("end of stream").isEqualTo(-1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("closed after, ms")
                    .isGreaterThanOrEqualTo(IDLE_MILLIS - 50);
        } finally {
            server.stop();
        }
    }

    private static Function<Server, ServerConnector> admin() {
        return server -> Listeners.admin(server, new HostPort("127.0.0.1", 0), ConnectionLimits.DEFAULTS, null,
                AdminConnections.Rules.DEFAULTS);
    }

    private static Function<Server, ServerConnector> front() {
        return server -> Listeners.front(server, new HostPort("127.0.0.1", 0), ConnectionLimits.DEFAULTS, null,
                Policy::defaults);
    }

    private static void assertAnsweredAfterWaiting(Function<Server, ServerConnector> listener, Handler waiting)
            throws Exception {
        Server server = Listeners.adminServer(ConnectionLimits.DEFAULTS);
        ServerConnector connector = listener.apply(server);
        connector.setIdleTimeout(IDLE_MILLIS);
        server.setHandler(waiting);
        server.start();
        try {
            long start = System.nanoTime();
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/")).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("waited");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("waited, ms")
                    .isGreaterThanOrEqualTo(WAIT_MILLIS);
        } finally {
            server.stop();
        }
    }

    private static Handler asynchronousWait() {
        return new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                request.getComponents().getScheduler().schedule(() -> answer(response, callback), WAIT_MILLIS,
                        TimeUnit.MILLISECONDS);
                return true;
            }
        };
    }

    private static Handler blockingWait() {
        return new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                Thread.sleep(WAIT_MILLIS);
                answer(response, callback);
                return true;
            }
        };
    }

    private static void answer(Response response, Callback callback) {
        response.setStatus(200);
        response.write(true, ByteBuffer.wrap("waited".getBytes(StandardCharsets.US_ASCII)), callback);
    }
}

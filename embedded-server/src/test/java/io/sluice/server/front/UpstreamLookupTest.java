package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.front.wire.Opened;
import io.sluice.server.front.wire.RawClient;
import io.sluice.server.front.wire.RawUpstream;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The lean path looks the upstream's host name up again while it runs (issue #27: it resolved it once at start):
 * through real sockets, with the name answered by a resolver the test controls, the site moving from 127.0.0.1 to
 * 127.0.0.2 on the same port.
 */
class UpstreamLookupTest {
    private static final String GET = "GET / HTTP/1.1\r\nHost: site.example\r\n\r\n";

    @AutoClose
    private final Opened open = new Opened();


    @Test
    void requestsGoToTheUpstreamsNewAddressOnceItsNameResolvesThere() throws Exception {
        RawUpstream before = sitesOnOnePort();
        AtomicReference<InetAddress> dns = new AtomicReference<>(InetAddress.getByName("127.0.0.1"));
        AtomicInteger lookups = new AtomicInteger();
        FrontUnderTest front = FrontUnderTest.startLean(URI.create("http://site.internal:" + before.port() + "/"),
                FrontUnderTest.ADMIT_ALL, host -> {
                    lookups.incrementAndGet();
                    return dns.get();
                }, Duration.ofMillis(50));
        open.add(front);

        try (RawClient client = new RawClient(front.port())) {
            assertThat(client.send(GET).response().bodyText()).isEqualTo("before");
            dns.set(InetAddress.getByName("127.0.0.2"));
            // The second lookup after the change has begun once the first has installed its answer.
            int asked = lookups.get();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (lookups.get() < asked + 2) {
                assertThat(System.nanoTime()).as("the name is looked up again").isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }

            // The idle connection to the old address is not reused once the new one is known.
            assertThat(client.send(GET).response().bodyText()).isEqualTo("after");
            assertThat(client.send(GET).response().bodyText()).isEqualTo("after");
        }
    }

    @Test
    void aFailedLookupKeepsTheLastGoodAddress() throws Exception {
        AtomicReference<InetAddress> dns = new AtomicReference<>(InetAddress.getByName("192.0.2.10"));
        UpstreamAddress address = new UpstreamAddress("site.internal", 8080, Duration.ofSeconds(30), host -> {
            InetAddress answer = dns.get();
            if (answer == null) {
                throw new UnknownHostException(host);
            }
            return answer;
        });
        InetSocketAddress first = address.get();

        dns.set(null);
        address.refresh();
        assertThat(address.get()).isSameAs(first);
        assertThat(first.getAddress().getHostAddress()).isEqualTo("192.0.2.10");

        dns.set(InetAddress.getByName("192.0.2.10"));
        address.refresh();
        assertThat(address.get()).as("the same answer keeps the pools' connections").isSameAs(first);

        dns.set(InetAddress.getByName("192.0.2.11"));
        address.refresh();
        assertThat(address.get()).isEqualTo(new InetSocketAddress(InetAddress.getByName("192.0.2.11"), 8080));
    }

    /**
     * The site "before" on 127.0.0.1 and "after" on 127.0.0.2, on one port: the free port found on 127.0.0.1 may
     * be taken on 127.0.0.2 by another process (a CI run found it so), so another pair is tried.
     */
    private RawUpstream sitesOnOnePort() throws IOException {
        for (int attempt = 1; ; attempt++) {
            RawUpstream before = RawUpstream.answering(request -> RawUpstream.ok("before"));
            try {
                open.add(new RawUpstream(RawUpstream.answers(request -> RawUpstream.ok("after")),
                        InetAddress.getByName("127.0.0.2"), before.port()));
                open.add(before);
                return before;
            } catch (BindException taken) {
                before.close();
                if (attempt == 20) {
                    throw taken;
                }
            }
        }
    }
}

package io.sluice.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/** One client sends each request from the address it is told, on connections of that address's own. */
class FromAddressTest {

    @Test
    void eachRequestLeavesFromItsOwnAddressThroughOneClient() throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, org.eclipse.jetty.server.Response response,
                                  org.eclipse.jetty.util.Callback callback) {
                Content.Sink.write(response, true, Request.getRemoteAddr(request), callback);
                return true;
            }
        });
        server.start();
        HttpClient client = new HttpClient();
        client.start();
        try {
            String front = "http://127.0.0.1:" + connector.getLocalPort() + "/";
            List<String> seen = new ArrayList<>();
            // in turn, as the fleet sends: without each address's own connections, a later request would go out
            // over a connection an earlier one opened from another address
            for (String address : List.of("127.1.0.9", "127.1.3.7", "127.1.0.9", "127.1.2.200", "127.1.3.7")) {
                ContentResponse answer = new FromAddress(address).apply(client.newRequest(front)).send();
                seen.add(answer.getContentAsString());
            }
            assertThat(seen).containsExactly("127.1.0.9", "127.1.3.7", "127.1.0.9", "127.1.2.200", "127.1.3.7");
            assertThat(new FromAddress("127.1.0.9")).isEqualTo(new FromAddress("127.1.0.9"))
                    .hasSameHashCodeAs(new FromAddress("127.1.0.9")).isNotEqualTo(new FromAddress("127.1.0.10"));
        } finally {
            client.stop();
            server.stop();
        }
    }
}

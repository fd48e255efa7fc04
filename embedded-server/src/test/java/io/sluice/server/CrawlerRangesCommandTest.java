package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.classify.CrawlerRanges;
import io.sluice.engine.net.IpAddress;
import io.sluice.server.ranges.OperatorRanges;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice-server crawler-ranges update}: from a real file (the bundled copy with a block added), and from a URL
 * served by a local Jetty; a copy with a /0, one cut short and a URL that fails change nothing and say why.
 */
class CrawlerRangesCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final CommandLineRun cli = new CommandLineRun();
    private Server site;

    @AfterEach
    void stopSite() throws Exception {
        if (site != null) {
            site.stop();
        }
    }

    @Test
    void aFileIsCheckedThenUsedAndACopyThatFailsChangesNothing() throws Exception {
        Path state = Files.createDirectory(dir.resolve("state"));
        Path file = dir.resolve("crawler-ranges.json");
        Files.write(file, bundledWith("Googlebot", "192.0.2.0/24"));

        assertThat(cli.run("crawler-ranges", "update", "--state", state.toString(), "--source", file.toString()))
                .as(cli.err()).isZero();
        assertThat(cli.out()).contains("crawler ranges from " + file, "blocks for", "within 30 s");
        CrawlerRanges saved = OperatorRanges.lastGood(state);
        assertThat(saved.inRanges("Googlebot", IpAddress.parse("192.0.2.9"))).isTrue();
        assertThat(Files.readString(state.resolve("audit.log"))).contains("crawler-ranges.update");
        byte[] good = Files.readAllBytes(state.resolve(OperatorRanges.FILE));

        Files.write(file, bundledWith("Googlebot", "0.0.0.0/0"));
        assertThat(cli.run("crawler-ranges", "update", "--state", state.toString(), "--source", file.toString()))
                .isEqualTo(1);
        assertThat(cli.err()).contains("0.0.0.0/0 is wider than /8", "the last good copy is kept");
        assertThat(Files.readAllBytes(state.resolve(OperatorRanges.FILE))).isEqualTo(good);

        Files.writeString(file, "{\"crawlers\": [{\"names\": [\"Googlebot\"], \"prefixes\": [\"66.249.64.0/27\"]}]}");
        assertThat(cli.run("crawler-ranges", "update", "--state", state.toString(), "--source", file.toString()))
                .isEqualTo(1);
        assertThat(cli.err()).contains("shrunk by more than half", "Googlebot");
        assertThat(Files.readAllBytes(state.resolve(OperatorRanges.FILE))).isEqualTo(good);
        // the operator knows the publisher dropped them: said so, it is used
        assertThat(cli.run("crawler-ranges", "update", "--state", state.toString(), "--source", file.toString(),
                "--accept-shrink")).isZero();
        assertThat(cli.out()).contains("accepted as asked");
        assertThat(OperatorRanges.lastGood(state).inRanges("Googlebot", IpAddress.parse("66.249.64.1"))).isTrue();
    }

    @Test
    void aUrlIsReadThroughHttpAndOneThatFailsChangesNothing() throws Exception {
        Path state = Files.createDirectory(dir.resolve("state"));
        AtomicReference<byte[]> body = new AtomicReference<>(bundledWith("bingbot", "198.51.100.0/24"));
        String url = serve(body) + "/ranges.json";

        assertThat(cli.run("crawler-ranges", "update", "--state", state.toString(), "--source", url))
                .as(cli.err()).isZero();
        assertThat(OperatorRanges.lastGood(state).inRanges("bingbot", IpAddress.parse("198.51.100.7"))).isTrue();

        body.set(null); // the site answers 503
        assertThat(cli.run("crawler-ranges", "update", "--state", state.toString(), "--source", url)).isEqualTo(1);
        assertThat(cli.err()).contains("could not be read", "answered 503", "the last good copy is kept");
        assertThat(OperatorRanges.lastGood(state).inRanges("bingbot", IpAddress.parse("198.51.100.7"))).isTrue();

        assertThat(cli.run("crawler-ranges", "update", "--state", state.toString(), "--source", "ftp://x/y"))
                .isEqualTo(2);
        assertThat(cli.err()).contains("must be a file or an http(s) URL");
    }

    /** The bundled copy with {@code block} added to the entry verifying {@code name}. */
    private static byte[] bundledWith(String name, String block) throws Exception {
        ObjectNode root;
        try (InputStream in = CrawlerRanges.class.getResourceAsStream(CrawlerRanges.RESOURCE)) {
            root = (ObjectNode) JSON.readTree(in);
        }
        for (var entry : root.get("crawlers")) {
            for (var listed : entry.get("names")) {
                if (listed.asText().equals(name)) {
                    ((ArrayNode) entry.get("prefixes")).add(block);
                }
            }
        }
        return JSON.writeValueAsBytes(root);
    }

    /** A local site answering every request with {@code body}, or 503 while it is null; its base URL. */
    private String serve(AtomicReference<byte[]> body) throws Exception {
        site = new Server();
        ServerConnector connector = new ServerConnector(site);
        connector.setHost("127.0.0.1");
        site.addConnector(connector);
        site.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                byte[] bytes = body.get();
                if (bytes == null) {
                    Response.writeError(request, response, callback, 503);
                    return true;
                }
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.write(true, ByteBuffer.wrap(bytes), callback);
                return true;
            }
        });
        site.start();
        return "http://127.0.0.1:" + connector.getLocalPort();
    }
}

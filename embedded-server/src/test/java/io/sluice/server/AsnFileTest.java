package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.change.PolicyChanges;
import io.sluice.server.config.ConfigReload;
import io.sluice.server.testkit.Servers;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --asn-file} (issue 46): the operator's IP-to-ASN file read at start, read again at each reload (a fresh copy
 * in its place), a file with a bad line stopping the start with the line named, and at a reload keeping the table in
 * use; and the policy's always-challenged AS asked over HTTP.
 */
class AsnFileTest {
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "test");
    private static final String CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36";

    @TempDir
    Path dir;

    @RegisterExtension
    final Servers servers = new Servers();

    private final List<String> said = new CopyOnWriteArrayList<>();

    /** 127.0.0.0/8 (where the tests' requests come from) in a private-use AS, and one other range. */
    private static final String LOOPBACK_AS = "1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET\n"
            + "127.0.0.0\t127.255.255.255\t64500\tZZ\tTEST-LOOPBACK\n";

    @Test
    void readAtStartAndAgainAtEachReloadWhileABadLineKeepsTheTableInUse() throws Exception {
        Path asns = dir.resolve("ip2asn-v4.tsv");
        Files.writeString(asns, LOOPBACK_AS);
        Path conf = dir.resolve("sluice.conf");
        Files.write(conf, List.of("listen = 127.0.0.1:0", "admin = 127.0.0.1:0",
                "upstream = http://127.0.0.1:" + closedPort(), "state = " + dir.resolve("state"),
                "asn-file = " + asns));
        CommandLine cli = Main.commandLine();
        cli.parseArgs("--config", conf.toString());
        Main main = ((Main) cli.getCommand()).overConfigFile();
        ServerConfig config = main.serverConfig();
        assertThat(config.asnFile()).isEqualTo(asns);
        SluiceServer server = servers.add(SluiceServer.start(config));
        ConfigReload reload = main.reloader(server, config, said::add);
        assertThat(server.engine().asnTable().ranges()).isEqualTo(2);
        assertThat(server.engine().asnTable().description(64500)).isEqualTo("TEST-LOOPBACK");

        // a fresh download in the file's place, the configuration unchanged
        Files.writeString(asns, LOOPBACK_AS + "2001:db8::\t2001:db8::ffff\t64501\tZZ\tTEST-SIX\n");
        reload.reload();
        assertThat(server.engine().asnTable().ranges()).isEqualTo(3);
        assertThat(String.join("\n", said)).contains("reload: IP-to-ASN file " + asns + ": 3 ranges");

        said.clear();
        Files.writeString(asns, "1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET\n1.0.1.0\t1.0.1.255\tAS7\tUS\tX\n");
        reload.reload();
        assertThat(server.engine().asnTable().ranges()).as("the table in use stays").isEqualTo(3);
        assertThat(String.join("\n", said)).contains("nothing in the configuration was applied",
                asns + " line 2: the AS number 'AS7'");
    }

    @Test
    void aFileWithABadLineStopsTheStartNamingIt() throws Exception {
        Path asns = dir.resolve("ip2asn-v4.tsv");
        Files.writeString(asns, "1.0.0.0\t1.0.0.255\t13335\tUS\tX\n1.0.1.0\tsoon\t7\tUS\tY\n");
        ServerConfig config = config().withAsnFile(asns);

        assertThatThrownBy(() -> servers.add(SluiceServer.start(config))).isInstanceOf(IOException.class)
                .hasMessageContaining(asns + " line 2: the range end 'soon' is not an IPv4 or IPv6 address");
        assertThatThrownBy(() -> servers.add(SluiceServer.start(config.withAsnFile(dir.resolve("missing.tsv")))))
                .isInstanceOf(IOException.class).hasMessageContaining("missing.tsv does not exist");
    }

    @Test
    void withoutAReloadFileSighupReadsItAgainAndAnAsThePolicyNamesIsAsked() throws Exception {
        Path asns = dir.resolve("ip2asn-v4.tsv");
        Files.writeString(asns, "1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET\n");
        SluiceServer server = servers.add(SluiceServer.start(config().withAsnFile(asns)));
        server.policyChanges().edit(OPERATOR, p -> p.withBrowserCheck(p.browserCheck()
                .withAlwaysChallengeAsns(List.of(64500L))));
        assertThat(page(server).statusCode()).as("loopback in no AS yet: a quiet day").isNotEqualTo(403);

        Files.writeString(asns, LOOPBACK_AS);
        assertThat(server.reloadAsnFile()).contains("2 ranges");

        HttpResponse<String> asked = page(server);
        assertThat(asked.statusCode()).isEqualTo(403);
        assertThat(asked.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(server.engine().snapshot().browserCheck().challenged()).isEqualTo(1);
    }

    private ServerConfig config() throws IOException {
        return new ServerConfig(new HostPort("127.0.0.1", 0), URI.create("http://127.0.0.1:"
                + closedPort()), new HostPort("127.0.0.1", 0), dir.resolve("state"), null, false, false, null,
                ServerConfig.DEFAULT_UPSTREAM_TIMEOUT, null);
    }

    private static HttpResponse<String> page(SluiceServer server) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.frontUri().resolve("/articles/1"))
                .header("User-Agent", CHROME).header("Accept", "text/html").header("Sec-Fetch-Mode", "navigate")
                .header("Sec-Fetch-Dest", "document").timeout(Duration.ofSeconds(15)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

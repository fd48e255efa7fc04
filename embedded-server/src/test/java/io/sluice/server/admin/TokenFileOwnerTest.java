package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.Main;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.testkit.Servers;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 50, item 1: the path of a leaked token. {@code sudo sluice-server token revoke} on a service's state directory
 * must leave the files the service's (or refuse), a token file the server cannot trust must revoke every token but
 * the operator's own {@code admin-token}, and the CLI's changes are in the audit log.
 */
class TokenFileOwnerTest {
    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aTokenCommandRunAsRootOnAServicesStateWritesItAsTheServicesUser() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root may give a file to another user");
        StateDirectory.open(state, null);
        UserPrincipal nobody = lookup().lookupPrincipalByName("nobody");
        GroupPrincipal nogroup = lookup().lookupPrincipalByGroupName("nogroup");
        giveAll(state, nobody, nogroup);

        TokensAndChangesTest.cli("token", "add", "leaked", "--role", "read", "--state", state.toString());
        TokensAndChangesTest.cli("token", "revoke", "leaked", "--state", state.toString());

        try (Stream<Path> files = Files.list(state)) {
            for (Path file : files.toList()) {
                PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
                assertThat(attributes.owner()).as("the owner of %s", file.getFileName()).isEqualTo(nobody);
                assertThat(attributes.group()).as("the group of %s", file.getFileName()).isEqualTo(nogroup);
            }
        }
        assertThat(state.resolve("tokens.json")).exists();
    }

    @Test
    void aTokenCommandByAnotherUserThanTheStatesOwnerIsRefusedAndChangesNothing() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root may give a file to another user");
        StateDirectory.open(state, null);
        giveAll(state, lookup().lookupPrincipalByName("nobody"), lookup().lookupPrincipalByGroupName("nogroup"));
        String user = System.getProperty("user.name");
        System.setProperty("user.name", "mallory");
        StringWriter err = new StringWriter();
        int exit;
        try {
            CommandLine cli = new CommandLine(new Main());
            cli.setOut(new PrintWriter(new StringWriter(), true));
            cli.setErr(new PrintWriter(err, true));
            exit = cli.execute("token", "add", "sneaky", "--role", "admin", "--state", state.toString());
        } finally {
            System.setProperty("user.name", user);
        }

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("belongs to nobody", "sudo -u nobody");
        assertThat(state.resolve("tokens.json")).doesNotExist();
    }

    @Test
    void aTokenFileTheServerCannotTrustRevokesEveryTokenButTheAdminFilesLoudly() throws Exception {
        SluiceServer server = servers.start(ServerConfig.demo(state));
        String grafana = AdminCalls.addToken(http, server, "grafana", "read");
        String worker = Files.readString(state.resolve("worker-token")).trim();
        assertThat(status(server, grafana)).isEqualTo(200);
        List<String> errors = new ArrayList<>();
        Handler handler = capture(errors);
        try {
            // What "sudo sluice-server token revoke" left before: tokens.json another user's. The server (root here,
            // able to read it) must treat it as one it cannot read, as at start.
            UserPrincipal owner = Files.getOwner(state.resolve("tokens.json"));
            Files.setOwner(state.resolve("tokens.json"), lookup().lookupPrincipalByName("nobody"));

            assertThat(status(server, grafana)).as("the read token, from tokens.json").isEqualTo(401);
            assertThat(status(server, worker)).as("the worker-token file's").isEqualTo(401);
            assertThat(status(server, server.adminToken())).as("the operator's own admin-token").isEqualTo(200);
            assertThat(errors).anySatisfy(line -> assertThat(line).contains("tokens.json", "belongs to nobody",
                    "every token but admin-token"));

            Files.setOwner(state.resolve("tokens.json"), owner);
            assertThat(status(server, grafana)).as("back once the file is the server's again").isEqualTo(200);

            // A file it cannot read at all (a directory in its place, as root cannot be kept from reading a file).
            Files.move(state.resolve("tokens.json"), state.resolve("tokens.json.away"));
            Files.createDirectory(state.resolve("tokens.json"));
            assertThat(status(server, grafana)).isEqualTo(401);
            assertThat(status(server, server.adminToken())).isEqualTo(200);
        } finally {
            Logger.getLogger("io.sluice.server.state.TokenStore").removeHandler(handler);
        }
    }

    @Test
    void aDamagedTokenFileRevokesEveryTokenButTheAdminFile() throws Exception {
        SluiceServer server = servers.start(ServerConfig.demo(state));
        String grafana = AdminCalls.addToken(http, server, "grafana", "read");

        Files.writeString(state.resolve("tokens.json"), "{\"tokens\":[{\"name\":\"grafana\"");

        assertThat(status(server, grafana)).as("not the tokens last read").isEqualTo(401);
        assertThat(status(server, server.adminToken())).isEqualTo(200);
    }

    @Test
    void tokenChangesFromTheCliAreInTheAuditLogNumberedAfterTheServersOwn() throws Exception {
        SluiceServer server = servers.start(ServerConfig.demo(state));
        AdminCalls.send(http, server, "POST", "pause", "{\"class\":\"BOT\"}", null);

        TokensAndChangesTest.cli("token", "add", "prometheus", "--role", "read", "--state", state.toString());
        TokensAndChangesTest.cli("token", "revoke", "prometheus", "--state", state.toString());
        AdminCalls.send(http, server, "POST", "resume", "{\"class\":\"BOT\"}", null);

        JsonNode audit = PolicyJson.mapper().readTree(AdminCalls.send(http, server, "GET", "audit?limit=4", null,
                null).body());
        assertThat(audit).hasSize(4);
        assertThat(audit.get(0).get("action").asText()).isEqualTo("resume");
        assertThat(audit.get(1).get("action").asText()).isEqualTo("token.revoke");
        assertThat(audit.get(1).get("who").asText()).isEqualTo("cli:" + System.getProperty("user.name"));
        assertThat(audit.get(1).get("detail").asText()).contains("prometheus");
        assertThat(audit.get(2).get("action").asText()).isEqualTo("token.add");
        assertThat(audit.get(2).get("detail").asText()).contains("prometheus", "read");
        assertThat(audit.get(3).get("action").asText()).isEqualTo("pause");
        List<Long> seqs = new ArrayList<>();
        audit.forEach(entry -> seqs.add(entry.get("seq").asLong()));
        assertThat(seqs).as("one numbering, newest first").isSortedAccordingTo((a, b) -> Long.compare(b, a))
                .doesNotHaveDuplicates();
    }

    private int status(SluiceServer server, String token) throws Exception {
        return AdminCalls.as(http, server, token, "GET", "/api/v1/snapshot", null).statusCode();
    }

    private static UserPrincipalLookupService lookup() {
        return Path.of("/").getFileSystem().getUserPrincipalLookupService();
    }

    private static void giveAll(Path dir, UserPrincipal user, GroupPrincipal group) throws IOException {
        try (Stream<Path> files = Stream.concat(Stream.of(dir), Files.list(dir))) {
            for (Path file : files.toList()) {
                PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS);
                view.setOwner(user);
                view.setGroup(group);
            }
        }
    }

    private static Handler capture(List<String> errors) {
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
                    synchronized (errors) {
                        errors.add(record.getMessage());
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger.getLogger("io.sluice.server.state.TokenStore").addHandler(handler);
        return handler;
    }
}

package io.sluice.console.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerBookTest {
    @TempDir
    Path dir;

    @Test
    void severalServersAreRememberedTheLastUsedFirstAndSecretsOnlyInTheOwnerOnlyFile() throws Exception {
        ServerBook book = new ServerBook(dir.resolve("sluice"));
        KnownServer prod = new KnownServer("prod", "https://prod.example:9090/", "alice", null);
        KnownServer staging = new KnownServer("staging", "https://staging.example:9090/", "admin", null);
        book.remember(prod, "secret-prod");
        book.remember(staging, "secret-staging");
        book.remember(prod, null);

        ServerBook again = new ServerBook(dir.resolve("sluice"));
        assertThat(again.servers()).containsExactly(prod, staging);
        assertThat(again.last()).contains(prod);
        assertThat(again.secret(prod)).contains("secret-prod");
        assertThat(again.secret(staging)).contains("secret-staging");
        assertThat(Files.readString(dir.resolve("sluice/servers.json"))).doesNotContain("secret");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(
                dir.resolve("sluice/server-tokens.json")))).isEqualTo("rw-------");
        try (Stream<Path> files = Files.list(dir.resolve("sluice"))) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .as("every write went through a temp file renamed over the old one")
                    .containsExactlyInAnyOrder("servers.json", "server-tokens.json");
        }
    }

    @Test
    void aTokenFileIsReadAtConnectAndItsSecretNeverCopied() throws Exception {
        Path tokenFile = Files.writeString(dir.resolve("admin-token"), "from-the-file\n");
        ServerBook book = new ServerBook(dir.resolve("sluice"));
        KnownServer local = new KnownServer("local", "http://127.0.0.1:9090/", "admin", tokenFile.toString());

        book.remember(local, "ignored");

        assertThat(book.secret(local)).contains("from-the-file");
        assertThat(Files.readString(dir.resolve("sluice/server-tokens.json"))).doesNotContain("from-the-file",
                "ignored");
    }

    @Test
    void forgettingAServerForgetsItsSecret() throws Exception {
        ServerBook book = new ServerBook(dir);
        book.remember(new KnownServer("a", "https://a:9090/", "admin", null), "sa");
        book.remember(new KnownServer("b", "https://b:9090/", "admin", null), "sb");

        book.forget("b");

        assertThat(book.servers()).extracting(KnownServer::name).containsExactly("a");
        assertThat(book.last()).isEmpty();
        assertThat(Files.readString(dir.resolve("server-tokens.json"))).doesNotContain("sb");
    }

    @Test
    void theOneServerAnOlderConsoleRememberedIsKept() throws Exception {
        Files.writeString(dir.resolve("console.json"), "{\"url\":\"http://127.0.0.1:9090/\"}");
        Files.writeString(dir.resolve("console-token"), "old-secret\n");
        ServerBook book = new ServerBook(dir);

        KnownServer old = book.last().orElseThrow();

        assertThat(old.url()).isEqualTo("http://127.0.0.1:9090/");
        assertThat(book.secret(old)).contains("old-secret");
        book.remember(new KnownServer("new", "https://new:9090/", "admin", null), "new-secret");
        assertThat(book.servers()).containsExactly(old, new KnownServer("new", "https://new:9090/", "admin", null));
        assertThat(book.secret(old)).as("carried over at the first save").contains("old-secret");
    }
}

package io.sluice.console.connect;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.console.api.DurableFile;
import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The servers the console remembers, in the user's config directory: {@code servers.json} (names, URLs, token
 * names, which was used last) and {@code server-tokens.json} (the secrets the console keeps, by server name,
 * owner-only). Each file is replaced whole and atomically: a new temp file (owner-only), fsync, rename over the
 * old one, fsync of the directory, so a crash leaves the old file or the new one, never half of one.
 */
public final class ServerBook {
    static final String SERVERS = "servers.json";
    static final String TOKENS = "server-tokens.json";
    private static final ObjectMapper JSON = PolicyJson.mapper();

    private final Path dir;

    public ServerBook(Path dir) {
        this.dir = dir;
    }

    /** {@code $XDG_CONFIG_HOME/sluice}, else {@code ~/.config/sluice}. */
    public static Path defaultDirectory() {
        String xdg = System.getenv("XDG_CONFIG_HOME");
        return (xdg == null || xdg.isBlank() ? Path.of(System.getProperty("user.home"), ".config") : Path.of(xdg))
                .resolve("sluice");
    }

    public Path directory() {
        return dir;
    }

    /** The file pinned certificates are kept in, beside the servers. */
    public Path pinsFile() {
        return dir.resolve("known-servers.json");
    }

    /** The remembered servers, in the order they were first saved. */
    public List<KnownServer> servers() throws IOException {
        Path file = dir.resolve(SERVERS);
        if (!Files.exists(file)) {
            return legacy().map(List::of).orElse(List.of());
        }
        JsonNode tree = JSON.readTree(file.toFile());
        List<KnownServer> servers = new ArrayList<>();
        for (JsonNode server : tree.path("servers")) {
            servers.add(new KnownServer(server.path("name").asText(), server.path("url").asText(),
                    server.path("tokenName").asText("admin"),
                    server.hasNonNull("tokenFile") ? server.path("tokenFile").asText() : null));
        }
        return servers;
    }

    /** The server used last, if it is still remembered. */
    public Optional<KnownServer> last() throws IOException {
        Path file = dir.resolve(SERVERS);
        List<KnownServer> servers = servers();
        if (!Files.exists(file)) {
            return servers.stream().findFirst();
        }
        String last = JSON.readTree(file.toFile()).path("last").asText("");
        return servers.stream().filter(s -> s.name().equals(last)).findFirst();
    }

    public Optional<KnownServer> find(String name) throws IOException {
        return servers().stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** The secret of {@code server}'s token: from its token file, else the one the console keeps. */
    public Optional<String> secret(KnownServer server) throws IOException {
        if (server.tokenFile() != null) {
            return Optional.of(Files.readString(Path.of(server.tokenFile()), StandardCharsets.UTF_8).trim())
                    .filter(s -> !s.isEmpty());
        }
        String kept = secrets().get(server.name());
        if (kept == null && !Files.exists(dir.resolve(SERVERS))) {
            kept = legacySecret().orElse(null);
        }
        return Optional.ofNullable(kept);
    }

    /**
     * Remembers {@code server} (replacing one of the same name) as the last used, with {@code secret} kept when
     * the server has no token file (null keeps the secret already kept).
     */
    public void remember(KnownServer server, String secret) throws IOException {
        Map<String, String> secrets = new TreeMap<>(secrets());
        if (!Files.exists(dir.resolve(SERVERS))) {
            // The first save: the older console's server (if any) is carried over with its secret.
            Optional<KnownServer> old = legacy();
            Optional<String> oldSecret = legacySecret();
            if (old.isPresent() && oldSecret.isPresent()) {
                secrets.putIfAbsent(old.get().name(), oldSecret.get());
            }
        }
        if (server.tokenFile() != null) {
            secrets.remove(server.name());
        } else if (secret != null) {
            secrets.put(server.name(), secret);
        } else {
            secret(server).ifPresent(s -> secrets.put(server.name(), s));
        }
        List<KnownServer> servers = new ArrayList<>(servers());
        int index = indexOf(servers, server.name());
        if (index >= 0) {
            servers.set(index, server);
        } else {
            servers.add(server);
        }
        writeTokens(secrets);
        writeServers(servers, server.name());
    }

    /** Forgets {@code name} and its kept secret. */
    public void forget(String name) throws IOException {
        List<KnownServer> servers = new ArrayList<>(servers());
        servers.removeIf(s -> s.name().equals(name));
        Map<String, String> secrets = new TreeMap<>(secrets());
        secrets.remove(name);
        writeTokens(secrets);
        String last = last().map(KnownServer::name).filter(n -> !n.equals(name)).orElse(null);
        writeServers(servers, last);
    }

    private static int indexOf(List<KnownServer> servers, String name) {
        for (int i = 0; i < servers.size(); i++) {
            if (servers.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private Map<String, String> secrets() throws IOException {
        Path file = dir.resolve(TOKENS);
        return Files.exists(file) ? JSON.readValue(file.toFile(), new TypeReference<Map<String, String>>() { })
                : Map.of();
    }

    private void writeServers(List<KnownServer> servers, String last) throws IOException {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("last", last);
        document.put("servers", servers);
        write(dir.resolve(SERVERS), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(document));
    }

    private void writeTokens(Map<String, String> secrets) throws IOException {
        write(dir.resolve(TOKENS), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(secrets));
    }

    /** Temp file (owner-only, new name), fsync, atomic rename, directory fsync. */
    static void write(Path file, byte[] content) throws IOException {
        DurableFile.SYSTEM.write(file, content);
    }

    /** The one server an older console remembered ({@code console.json} and {@code console-token}). */
    private Optional<KnownServer> legacy() throws IOException {
        Path json = dir.resolve("console.json");
        if (!Files.exists(json) || legacySecret().isEmpty()) {
            return Optional.empty();
        }
        String url = JSON.readTree(json.toFile()).path("url").asText("");
        return url.isBlank() ? Optional.empty() : Optional.of(new KnownServer(url, url, "admin", null));
    }

    private Optional<String> legacySecret() throws IOException {
        Path token = dir.resolve("console-token");
        return Files.exists(token) ? Optional.of(Files.readString(token, StandardCharsets.UTF_8).trim())
                .filter(s -> !s.isEmpty()) : Optional.empty();
    }
}

package io.sluice.console;

import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * The server the console connects to, remembered between runs: the URL in {@code console.json} and the
 * token in {@code console-token} (owner-only), both in the user's config directory.
 */
public record ConnectionSettings(String url, String token) {

    /** {@code $XDG_CONFIG_HOME/sluice}, else {@code ~/.config/sluice}. */
    public static Path defaultDirectory() {
        String xdg = System.getenv("XDG_CONFIG_HOME");
        return (xdg == null || xdg.isBlank() ? Path.of(System.getProperty("user.home"), ".config") : Path.of(xdg))
                .resolve("sluice");
    }

    /** What was remembered, if anything complete was. */
    public static Optional<ConnectionSettings> load(Path dir) {
        try {
            Path json = dir.resolve("console.json");
            Path token = dir.resolve("console-token");
            if (!Files.exists(json) || !Files.exists(token)) {
                return Optional.empty();
            }
            String url = PolicyJson.mapper().readTree(json.toFile()).path("url").asText("");
            String secret = Files.readString(token, StandardCharsets.UTF_8).trim();
            return url.isBlank() || secret.isBlank() ? Optional.empty()
                    : Optional.of(new ConnectionSettings(url, secret));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    public void save(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path token = dir.resolve("console-token");
        Path temp = dir.resolve("console-token.tmp");
        Files.deleteIfExists(temp);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(temp);
        }
        Files.writeString(temp, this.token + "\n", StandardCharsets.UTF_8);
        Files.move(temp, token, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Path json = dir.resolve("console.json");
        Path jsonTemp = dir.resolve("console.json.tmp");
        PolicyJson.mapper().writeValue(jsonTemp.toFile(), java.util.Map.of("url", url));
        Files.move(jsonTemp, json, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}

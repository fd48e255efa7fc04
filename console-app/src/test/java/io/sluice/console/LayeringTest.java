package io.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The console talks to a server only through the admin API: apart from the launcher that starts an
 * embedded server for the demo, no console class may reach into the server's code, and from the
 * engine it may use only the value types the API carries (policy, telemetry, governor views).
 */
class LayeringTest {
    private static final Path SOURCES = Path.of("src/main/java/io/sluice/console");
    private static final List<String> ENGINE_VALUES = List.of("io.sluice.engine.policy.", "io.sluice.engine.telemetry.",
            "io.sluice.engine.governor.", "io.sluice.engine.whatif.WhatIfReport;", "io.sluice.engine.RequestClass;",
            "io.sluice.engine.Reason;");

    @Test
    void onlyTheDemoLauncherStartsAServerAndNothingUsesServerInternals() throws IOException {
        List<Path> sources = sources();
        assertThat(sources).hasSizeGreaterThan(10);
        assertThat(sources).filteredOn(file -> imports(file).anyMatch(line -> line.startsWith("io.sluice.server.")))
                .extracting(file -> file.getFileName().toString())
                .containsExactly("ConsoleApp.java");
    }

    @Test
    void fromTheEngineOnlyTheValuesTheApiCarries() throws IOException {
        for (Path file : sources()) {
            imports(file).filter(line -> line.startsWith("io.sluice.engine."))
                    .forEach(line -> assertThat(ENGINE_VALUES).as("%s imports %s", file.getFileName(), line)
                            .anyMatch(line::startsWith));
        }
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            return files.filter(file -> file.toString().endsWith(".java")).sorted().toList();
        }
    }

    private static Stream<String> imports(Path file) {
        try {
            return Files.readAllLines(file).stream().filter(line -> line.startsWith("import "))
                    .map(line -> line.substring("import ".length()).replace("static ", "").trim());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

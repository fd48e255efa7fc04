package io.sluice.server.ops;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A command run to its end, its exit code and what it printed (standard output and error together). */
record ProcessRun(int exit, String output) {

    /** Runs {@code command} in {@code dir} with {@code env} added to this JVM's environment; 2 minutes at most. */
    static ProcessRun of(Path dir, Map<String, String> env, List<String> command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process = builder.start();
        // Read before waiting: a command that fills the pipe would otherwise never end.
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " still running after 2 minutes:\n" + output);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new ProcessRun(process.exitValue(), output);
    }

    static ProcessRun of(Path dir, String... command) throws IOException {
        return of(dir, Map.of(), List.of(command));
    }
}

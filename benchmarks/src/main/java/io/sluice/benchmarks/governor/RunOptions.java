package io.sluice.benchmarks.governor;

import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of the governor runs: {@code --name value} pairs, and where the permit API is: a Sluice of
 * their own (on free ports, a fresh state directory) unless {@code --admin} and {@code --token-file} name one.
 * Other runs read their {@code --name value} pairs with it too ({@link #of}).
 */
public final class RunOptions {
    /** A run against the permit API at {@code admin}; {@code sluice} is null when it is not this JVM's. */
    interface Run<T> {
        T run(URI admin, String workerToken, SluiceServer sluice) throws Exception;
    }

    private final Map<String, String> values;

    private RunOptions(Map<String, String> values) {
        this.values = values;
    }

    /** @param names the run's own options, without the dashes; admin and token-file are always known */
    static RunOptions parse(String[] args, String... names) {
        List<String> known = new ArrayList<>(List.of(names));
        known.add("admin");
        known.add("token-file");
        return of(args, known);
    }

    /** {@code --name value} pairs of the options {@code known} (without the dashes); any other is an error. */
    public static RunOptions of(String[] args, List<String> known) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i].startsWith("--") ? args[i].substring(2) : args[i];
            if (!known.contains(name) || i + 1 >= args.length) {
                throw new IllegalArgumentException("unknown option or no value: " + args[i] + " (--"
                        + String.join(", --", known) + ")");
            }
            values.put(name, args[i + 1]);
        }
        return new RunOptions(values);
    }

    public int integer(String name, int otherwise) {
        return values.containsKey(name) ? Integer.parseInt(values.get(name)) : otherwise;
    }

    public double number(String name, double otherwise) {
        return values.containsKey(name) ? Double.parseDouble(values.get(name)) : otherwise;
    }

    public Path path(String name, Path otherwise) {
        return values.containsKey(name) ? Path.of(values.get(name)) : otherwise;
    }

    public String text(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    /** Runs {@code run} against {@code --admin} with {@code --token-file}'s token, or against a Sluice of its own. */
    <T> T withPermitApi(String stateName, Run<T> run) throws Exception {
        if (!values.containsKey("admin")) {
            Path state = Files.createTempDirectory(stateName);
            try (SluiceServer sluice = Demo.start(ServerConfig.demo(state))) {
                System.out.printf("Sluice at %s (state %s)%n", sluice.adminUri(), state);
                return run.run(sluice.adminUri(), sluice.state().workerToken(), sluice);
            }
        }
        if (!values.containsKey("token-file")) {
            throw new IllegalArgumentException("--admin needs --token-file (the worker token)");
        }
        return run.run(URI.create(values.get("admin")), token(Path.of(values.get("token-file"))), null);
    }

    private static String token(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8).trim();
    }
}

package io.sluice.benchmarks.cluster;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One Redis server's {@code INFO commandstats}: calls and microseconds per command since the last
 * {@code CONFIG RESETSTAT}. Redis counts the commands a script runs ({@code redis.call}) as well as those clients
 * send, so two sums are kept apart: every command <em>run</em>, and the commands the nodes <em>send</em> (the
 * round trips).
 */
record CommandStats(Map<String, Calls> commands) {
    /**
     * The commands a node sends and no script of ours runs (scripts, pings, the policy follower's reads); the
     * per-request figures of bench/front/run.sh count the same ones. HMGET and TIME, sent now and then outside the
     * request path, are left out because scripts run them too.
     */
    private static final Set<String> SENT = Set.of("fcall", "evalsha", "eval", "ping", "xread", "script|load",
            "function|load");
    /** The commands that run one of our scripts: as a Redis function, or by its SHA-1 or text. */
    private static final Set<String> SCRIPTS = Set.of("fcall", "evalsha", "eval");
    /** What this benchmark itself sends to read and reset the figures. */
    private static final Set<String> OURS = Set.of("info", "config|resetstat", "auth");

    /** One command's figures. */
    record Calls(long calls, long usec) {
        static final Calls NONE = new Calls(0, 0);
    }

    CommandStats {
        commands = Map.copyOf(commands);
    }

    /** Reads the {@code cmdstat_NAME:calls=N,usec=U,...} lines. */
    static CommandStats parse(String info) {
        Map<String, Calls> commands = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            long calls = 0;
            long usec = 0;
            for (String field : line.substring(colon + 1).split(",")) {
                String[] pair = field.split("=", 2);
                if (pair[0].equals("calls")) {
                    calls = Long.parseLong(pair[1]);
                } else if (pair[0].equals("usec")) {
                    usec = Long.parseLong(pair[1]);
                }
            }
            commands.put(line.substring("cmdstat_".length(), colon), new Calls(calls, usec));
        }
        return new CommandStats(commands);
    }

    /** {@code name}'s figures (lower case, subcommands as Redis writes them: {@code script|load}). */
    Calls of(String name) {
        return commands.getOrDefault(name, Calls.NONE);
    }

    /** Every command run, scripts' own calls included, but for the benchmark's reads. */
    long run() {
        return commands.entrySet().stream().filter(e -> !OURS.contains(e.getKey()))
                .mapToLong(e -> e.getValue().calls()).sum();
    }

    /** The calls of our scripts, however sent (see {@link #SCRIPTS}), and Redis's time in them. */
    Calls scripts() {
        return new Calls(SCRIPTS.stream().mapToLong(name -> of(name).calls()).sum(),
                SCRIPTS.stream().mapToLong(name -> of(name).usec()).sum());
    }

    /** The commands the nodes sent (see {@link #SENT}). */
    long sent() {
        return SENT.stream().mapToLong(name -> of(name).calls()).sum();
    }
}

package io.sluice.server.config;

import io.sluice.server.ServerConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What {@code SIGHUP} does: reads the configuration file again (with the same command line over it), applies the
 * settings a running server can take, and says what it changed and what waits for a restart. A file with a
 * problem applies nothing but the access log's re-opening (below).
 *
 * <p>Reloadable: {@code access-log} (another file, or the same name again after logrotate moved it: it is always
 * re-opened), {@code access-log-format}, and the public listener's guard: {@code max-connections-per-address},
 * {@code request-head-timeout}, {@code min-body-rate} (read afresh at each new connection and deadline check), and
 * {@code asn-file} (read again at every reload, changed or not: a fresh download is put in the file's place; a file
 * that cannot be used is a problem that applies nothing, and the table in use stays).
 * Everything else is built into the listeners, the connection pools or the cluster's leases when the server starts
 * (the upstream timeout is the idle timeout of each pooled upstream connection and part of every lease), so a
 * change is reported as needing a restart rather than half applied. See docs/manual/command-line.md, "Reload: SIGHUP".
 *
 * <p>The access log is re-opened whatever the file says: a reload is how logrotate tells the server it renamed the
 * log, and a mistake in the file (an unknown key, a value out of range, a new access log that cannot be opened) must
 * not leave the server writing to the renamed file until the disk fills. Then nothing else is applied, and the log
 * says why, problem by problem.
 */
public final class ConfigReload implements Runnable {
    static final Set<String> RELOADABLE = Set.of("access-log", "access-log-format", "max-connections-per-address",
            "request-head-timeout", "min-body-rate", "asn-file");

    /** The configuration the file and the command line give now. */
    public record Settings(ServerConfig config, Map<String, String> values) {
    }

    /** Reads the file again and parses the command line over it. */
    public interface Source {
        Settings read() throws ConfigException;
    }

    /** The running server, as a reload changes it. */
    public interface Target {
        /** Applies the reloadable parts of {@code next}; throws, changing nothing, when it cannot. */
        void reload(ServerConfig next) throws IOException;

        /**
         * Opens the access log again by the name and in the format it has now (after logrotate renamed it); its name,
         * or null when the server writes none.
         */
        String reopenAccessLog() throws IOException;
    }

    private final Source source;
    private final Target target;
    private final Consumer<String> log;
    private Map<String, String> running;

    /** @param running the settings the server was started with */
    public ConfigReload(Settings running, Source source, Target target, Consumer<String> log) {
        this.running = new LinkedHashMap<>(running.values());
        this.source = source;
        this.target = target;
        this.log = log;
    }

    @Override
    public void run() {
        reload();
    }

    /** Reloads once; the log says what happened. Signals that come together are taken one after the other. */
    public synchronized void reload() {
        Settings next;
        try {
            next = source.read();
        } catch (ConfigException e) {
            log.accept("reload: the configuration has problems, so nothing in it was applied:");
            e.problems().forEach(problem -> log.accept("reload:   " + problem));
            reopenAsRunning();
            return;
        }
        List<String> applied = new ArrayList<>();
        List<String> restart = new ArrayList<>();
        for (Map.Entry<String, String> setting : next.values().entrySet()) {
            String before = running.get(setting.getKey());
            if (Objects.equals(before, setting.getValue())) {
                continue;
            }
            if (reloadable(setting.getKey(), before, setting.getValue())) {
                applied.add(setting.getKey());
            } else {
                restart.add(setting.getKey());
            }
        }
        try {
            target.reload(next.config());
        } catch (IOException | RuntimeException e) {
            log.accept("reload: nothing in the configuration was applied: " + e.getMessage());
            reopenAsRunning();
            return;
        }
        for (String key : applied) {
            log.accept("reload: " + key + " changed from " + running.get(key) + " to " + next.values().get(key));
            running.put(key, next.values().get(key));
        }
        if (!restart.isEmpty()) {
            // Kept as they run, so the next reload says it again: it stays true until the restart.
            log.accept("reload: changed, but applied only by a restart: " + String.join(", ", restart));
        }
        log.accept("reload: done" + (running.get("access-log") == null ? "" : "; access log re-opened"));
    }

    /** The access log re-opened as it runs, when the configuration could not be applied. */
    private void reopenAsRunning() {
        try {
            String name = target.reopenAccessLog();
            if (name != null) {
                log.accept("reload: access log re-opened as it was: " + name);
            }
        } catch (IOException | RuntimeException e) {
            log.accept("reload: the access log could not be re-opened (" + e.getMessage() + "); it goes on in the "
                    + "file it had open");
        }
    }

    /** The access log can be moved or reformatted, not started or stopped: the request path holds it or not. */
    private static boolean reloadable(String key, String before, String after) {
        if ("access-log".equals(key)) {
            return before != null && after != null;
        }
        return RELOADABLE.contains(key);
    }
}

package io.sluice.server.cluster;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A Lua script shipped as a resource beside this class, run by its SHA-1 ({@code EVALSHA}: the script's text
 * crosses the network once per Redis process). A Redis that answers {@code NOSCRIPT} (restarted, failed
 * over, or {@code SCRIPT FLUSH}ed) gets the whole text once with {@code EVAL}, which also caches it again.
 *
 * <p>A script made by {@link #loadFunction} (the per-request scripts, called for every batch of admissions) also runs
 * as a Redis function ({@code FCALL}) once {@link #preload} has loaded it on every master the link reaches: Redis then
 * makes its definitions once, not on every call (function-library.lua says what that saves). Until then, on a Redis
 * without functions (before 7.0, or a user not allowed {@code FUNCTION}), and while a function Redis lost (restarted
 * empty, {@code FUNCTION FLUSH}ed, a new master) is loaded again, it runs by {@code EVALSHA}: one text, the same rules.
 */
final class LuaScript {
    private static final System.Logger LOG = System.getLogger(LuaScript.class.getName());
    private static final String FUNCTION_PREFIX = "sluice_";
    private static final String SCRIPT_LINE = "--SCRIPT--";
    /** The first argument of a call whose keys are carried in its arguments (locals.lua's CARRIED). */
    private static final String CARRIED = "*";

    private final String name;
    private final String source;
    private final String sha1;
    /** For a script run as a Redis function: the library's text for {@code FUNCTION LOAD} and its function's name. */
    private final String library;
    private final String function;

    private LuaScript(String name, String source, String library, String function) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1(source);
        this.library = library;
        this.function = function;
    }

    /**
     * {@code name}.lua from this package's resources, after the text of each of {@code libraries} (.lua files
     * beside it whose functions several scripts share): Redis runs one text, so they become part of it.
     */
    static LuaScript load(String name, String... libraries) {
        return new LuaScript(name, joined(name, libraries), null, null);
    }

    /**
     * Like {@link #load}, for a script whose text ends by defining {@code main(keys, args)}, the call: it also runs
     * as a Redis function, whose definitions (everything before and in main) are made once. For {@code EVALSHA} the
     * text is wrapped so that main is called with the call's {@code KEYS} and {@code ARGV}.
     */
    static LuaScript loadFunction(String name, String... libraries) {
        String text = joined(name, libraries);
        String function = FUNCTION_PREFIX + sha1(text);
        String template = text("function-library");
        if (!template.contains(SCRIPT_LINE + "\n")) {
            throw new IllegalStateException("function-library.lua has no line " + SCRIPT_LINE);
        }
        String library = template.replace("LIBRARY", function).replace(SCRIPT_LINE + "\n", text + "\n");
        return new LuaScript(name, evaluated(text), library, function);
    }

    /**
     * What {@code EVAL} runs for a text that ends by defining {@code main(keys, args)}: its definitions made, then
     * main called with the call's {@code KEYS} and {@code ARGV} (which the text's own locals of those names hide).
     */
    static String evaluated(String text) {
        return "local run = (function()\n" + text + "\nreturn main\nend)()\nreturn run(KEYS, ARGV)\n";
    }

    private static String joined(String name, String... libraries) {
        StringBuilder source = new StringBuilder();
        for (String library : libraries) {
            source.append(text(library)).append('\n');
        }
        return source.append(text(name)).toString();
    }

    private static String text(String name) {
        try (InputStream in = LuaScript.class.getResourceAsStream(name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + name + ".lua");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs it atomically in Redis; each of the (at most three) commands has the link's deadline. A function Redis
     * no longer has ran nothing, so the call is sent again by {@code EVALSHA} while the function is loaded again.
     */
    <T> CompletableFuture<T> run(RedisLink link, ScriptOutputType type, String[] keys, String... args) {
        if (function == null || !link.hasFunction(function)) {
            return runScript(link, type, keys, args);
        }
        return link.<T>call(commands -> commands.fcall(function, type, keys, args))
                .exceptionallyCompose(failure -> {
                    if (!functionNotFound(failure)) {
                        return CompletableFuture.failedFuture(failure);
                    }
                    if (link.functionLost(function)) {
                        loadLibrary(link);
                    }
                    return runScript(link, type, keys, args);
                });
    }

    /**
     * Like {@link #run}, for keys of any slots of one master ({@link RedisLink#shardOf}), for a script that opens its
     * call with locals.lua's openCall: on a Redis Cluster, keys that span slots are carried in the arguments, after
     * {@code *} and their number, and the first is declared, which routes the call. Keys of one slot are declared.
     */
    <T> CompletableFuture<T> runOnMaster(RedisLink link, ScriptOutputType type, List<String> keys,
                                         List<String> args) {
        if (!link.spansSlots(keys)) {
            return run(link, type, keys.toArray(String[]::new), args.toArray(String[]::new));
        }
        List<String> carried = new ArrayList<>(2 + keys.size() + args.size());
        carried.add(CARRIED);
        carried.add(Integer.toString(keys.size()));
        carried.addAll(keys);
        carried.addAll(args);
        return run(link, type, new String[] {keys.get(0)}, carried.toArray(String[]::new));
    }

    private <T> CompletableFuture<T> runScript(RedisLink link, ScriptOutputType type, String[] keys, String... args) {
        return link.<T>call(commands -> commands.evalsha(sha1, type, keys, args))
                .exceptionallyCompose(failure -> noScript(failure)
                        ? link.<T>call(commands -> commands.eval(source, type, keys, args))
                        : CompletableFuture.failedFuture(failure));
    }

    /**
     * Caches the script in Redis ahead of its first use ({@code SCRIPT LOAD}), so the first calls after Redis came
     * back empty do not each pay a {@code NOSCRIPT} and a second command, and calls pipelined on one link run in
     * the order they were sent (a call retried after {@code NOSCRIPT} runs after the ones sent behind it); and loads
     * a script made by {@link #loadFunction} as a function on every master. Completes when both are done; a Redis
     * that refuses the function is no failure (the script runs by {@code EVALSHA} there).
     */
    CompletableFuture<Void> preload(RedisLink link) {
        CompletableFuture<String> cached = link.call(commands -> commands.scriptLoad(source));
        if (function == null) {
            return cached.thenApply(sha -> null);
        }
        return CompletableFuture.allOf(cached, loadLibrary(link));
    }

    /**
     * Caches the script on every master this link reaches ({@code SCRIPT LOAD} on each; on one Redis, on it), which
     * also opens the link's connection to each: for a script called rarely whose first call should cost what the
     * others do. A failure is no harm (the call falls back to {@code EVAL}); completes either way.
     */
    CompletableFuture<Void> cacheOnEveryMaster(RedisLink link) {
        return link.onEveryMaster(commands -> commands.scriptLoad(source)).handle((loaded, failure) -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.DEBUG, () -> link + ": " + this + " not cached ahead: "
                        + cause(failure).getMessage());
            }
            return null;
        });
    }

    /** Loads the library on every master; {@code REPLACE}, so a master that has it already answers as one without. */
    private CompletableFuture<Void> loadLibrary(RedisLink link) {
        return link.onEveryMaster(commands -> commands.functionLoad(library, true)).handle((loaded, failure) -> {
            if (failure == null) {
                link.functionLoaded(function);
            } else {
                LOG.log(System.Logger.Level.DEBUG, () -> link + ": " + this + " runs by EVALSHA, Redis did not load"
                        + " it as a function: " + cause(failure).getMessage());
            }
            return null;
        });
    }

    private static boolean noScript(Throwable failure) {
        return cause(failure) instanceof RedisNoScriptException;
    }

    private static boolean functionNotFound(Throwable failure) {
        Throwable cause = cause(failure);
        return cause instanceof RedisCommandExecutionException && cause.getMessage() != null
                && cause.getMessage().startsWith("ERR Function not found");
    }

    private static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    String sha1() {
        return sha1;
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-1", e);
        }
    }

    @Override
    public String toString() {
        return name + ".lua";
    }
}

package io.sluice.server.cluster;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A Lua script shipped as a resource beside this class, run by its SHA-1 ({@code EVALSHA}: the script's text
 * crosses the network once per Redis process). A Redis that answers {@code NOSCRIPT} (restarted, failed
 * over, or {@code SCRIPT FLUSH}ed) gets the whole text once with {@code EVAL}, which also caches it again.
 */
final class LuaScript {
    private final String name;
    private final String source;
    private final String sha1;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1(source);
    }

    /**
     * {@code name}.lua from this package's resources, after the text of each of {@code libraries} (.lua files
     * beside it whose functions several scripts share): Redis runs one text, so they become part of it.
     */
    static LuaScript load(String name, String... libraries) {
        StringBuilder source = new StringBuilder();
        for (String library : libraries) {
            source.append(text(library)).append('\n');
        }
        return new LuaScript(name, source.append(text(name)).toString());
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

    /** Runs it atomically in Redis; each of the (at most two) commands has the link's deadline. */
    <T> CompletableFuture<T> run(RedisLink link, ScriptOutputType type, String[] keys, String... args) {
        return link.<T>call(commands -> commands.evalsha(sha1, type, keys, args))
                .exceptionallyCompose(failure -> noScript(failure)
                        ? link.<T>call(commands -> commands.eval(source, type, keys, args))
                        : CompletableFuture.failedFuture(failure));
    }

    /**
     * Caches the script in Redis ahead of its first use ({@code SCRIPT LOAD}), so the first calls after Redis came
     * back empty do not each pay a {@code NOSCRIPT} and a second command, and calls pipelined on one link run in
     * the order they were sent (a call retried after {@code NOSCRIPT} runs after the ones sent behind it).
     */
    CompletableFuture<String> preload(RedisLink link) {
        return link.call(commands -> commands.scriptLoad(source));
    }

    private static boolean noScript(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        return cause instanceof RedisNoScriptException;
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

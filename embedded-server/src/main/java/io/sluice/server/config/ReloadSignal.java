package io.sluice.server.config;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;

/**
 * What {@code SIGHUP} ({@code systemctl reload}, {@code kill -HUP}, logrotate's {@code postrotate}) does to the
 * process: installed as the server's {@code main} begins, so that a signal sent while the server is still starting
 * is held instead of ending the JVM as its default handler does (exit 129); once the server runs, {@link #start}
 * gives the action, and each signal runs it on a thread of its own so the JVM's signal thread is never held.
 *
 * <p>Through {@code sun.misc.Signal}, the one way the JDK offers (it stays in {@code jdk.unsupported} on 17 and
 * 25), reached by reflection: a direct reference draws javac's "internal proprietary API" warning, which no
 * annotation silences and the build treats as an error. Where the signal does not exist (Windows) nothing is
 * installed and the caller says so. A signal that comes before the JVM has set up its own handlers (its first
 * moments, before any of Sluice's code runs) still ends it: nothing in the process can catch it yet.
 */
public final class ReloadSignal {
    private final Outcome outcome;
    // Guarded by this.
    private Runnable action;
    private boolean exitOnHangup;
    private boolean held;

    /** What installing the handler came to. */
    public enum Outcome {
        /** SIGHUP runs the action. */
        INSTALLED,
        /**
         * The process was started with SIGHUP ignored ({@code nohup} does that), and the JVM keeps a signal ignored
         * that it inherited so: the handler is taken and never called.
         */
        IGNORED,
        /** This platform has no SIGHUP. */
        UNSUPPORTED
    }

    private ReloadSignal() {
        this.outcome = installHandler(this::hangUp);
    }

    /** Takes SIGHUP from now on, holding a signal until {@link #start} (or {@link #exitOnHangup}) says what it does. */
    public static ReloadSignal install() {
        return new ReloadSignal();
    }

    public Outcome outcome() {
        return outcome;
    }

    /**
     * From now on each SIGHUP runs {@code onHangup}. A signal held meanwhile is not run here: the answer says whether
     * one came, so that the caller runs the action once in its turn.
     *
     * @return whether a SIGHUP came before this call
     */
    public synchronized boolean start(Runnable onHangup) {
        action = onHangup;
        boolean came = held;
        held = false;
        return came;
    }

    /**
     * For a command that is not the server (a subcommand run in a terminal): SIGHUP ends the process as the JVM's own
     * handler does (exit 129, shutdown hooks run), a signal held until now included.
     */
    public synchronized void exitOnHangup() {
        exitOnHangup = true;
        if (held) {
            exit();
        }
    }

    private synchronized void hangUp() {
        if (exitOnHangup) {
            exit();
        } else if (action == null) {
            held = true;
        } else {
            Thread reload = new Thread(action, "sluice-reload");
            reload.setDaemon(true);
            reload.start();
        }
    }

    private static void exit() {
        // Not on the JVM's signal thread, which System.exit would otherwise hold while the shutdown hooks run.
        Thread exit = new Thread(() -> System.exit(128 + 1), "sluice-hangup");
        exit.start();
    }

    private static Outcome installHandler(Runnable onHangup) {
        try {
            Class<?> signalType = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object hangup = signalType.getConstructor(String.class).newInstance("HUP");
            InvocationHandler calls = (proxy, method, args) -> switch (method.getName()) {
                case "handle" -> {
                    onHangup.run();
                    yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "SIGHUP handler";
            };
            Object handler = Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType}, calls);
            Object before = signalType.getMethod("handle", signalType, handlerType).invoke(null, hangup, handler);
            return before == handlerType.getField("SIG_IGN").get(null) ? Outcome.IGNORED : Outcome.INSTALLED;
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return Outcome.UNSUPPORTED;
        }
    }
}

package io.sluice.server.config;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;

/**
 * Runs an action on {@code SIGHUP} ({@code systemctl reload}, {@code kill -HUP}), on a thread of its own so the
 * JVM's signal thread is never held.
 *
 * <p>Through {@code sun.misc.Signal}, the one way the JDK offers (it stays in {@code jdk.unsupported} on 17 and
 * 25), reached by reflection: a direct reference draws javac's "internal proprietary API" warning, which no
 * annotation silences and the build treats as an error. Where the signal does not exist (Windows) nothing is
 * installed and the caller says so.
 */
public final class ReloadSignal {
    private ReloadSignal() {
    }

    /** What installing the action came to. */
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

    /** Installs {@code onHangup} for SIGHUP. */
    public static Outcome install(Runnable onHangup) {
        try {
            Class<?> signalType = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object hangup = signalType.getConstructor(String.class).newInstance("HUP");
            InvocationHandler calls = (proxy, method, args) -> switch (method.getName()) {
                case "handle" -> {
                    Thread reload = new Thread(onHangup, "sluice-reload");
                    reload.setDaemon(true);
                    reload.start();
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

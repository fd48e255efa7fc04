package io.sluice.benchmarks.cluster;

import java.io.PrintStream;
import java.util.Locale;

/** {@link CostResult} printed: one readable table, then a CSV line per redis-server. */
final class CostReport {
    private static final String ROW = "%-22s %11s %10s %13s %14s %10s %12s %15s%n";

    private CostReport() {
    }

    static void print(CostResult result, PrintStream out) {
        CostOptions options = result.options();
        out.printf(Locale.ROOT, "Redis CPU per admitted request: %s, %d node%s in this JVM, %d requests in flight per "
                        + "node, %d clients; %d s measured after %d s of warm-up%n", result.redis(), options.nodes(),
                options.nodes() == 1 ? "" : "s", options.inFlight(), options.clients(), options.seconds(),
                options.warmupSeconds());
        out.printf(Locale.ROOT, "admitted %d (%.0f/s), refused %d, other %d; decided without asking Redis %d%s%n",
                result.counts().admitted(), result.admittedPerSecond(), result.counts().refused(),
                result.counts().other(), result.counts().unasked(),
                result.lastRefusal() == null ? "" : " (last refusal: " + result.lastRefusal() + ")");
        if (result.degraded() > 0) {
            out.printf(Locale.ROOT, "WARNING: a node went DEGRADED %d times: some requests were decided without "
                    + "Redis, and Redis's figures per admitted request are too low%n", result.degraded());
        }
        out.printf(Locale.ROOT, ROW, "per admitted request", "CPU us", "CPU share", "commands run", "commands sent",
                "cmd share", "scripts", "script us");
        long run = 0;
        long sent = 0;
        long scripts = 0;
        long scriptUsec = 0;
        for (CostResult.Shard shard : result.shards()) {
            CommandStats.Calls calls = shard.stats().scripts();
            row(out, result, shard.address(), shard.cpuNanos(), result.cpuShare(shard), shard.stats().run(),
                    shard.stats().sent(), result.commandShare(shard), calls);
            run += shard.stats().run();
            sent += shard.stats().sent();
            scripts += calls.calls();
            scriptUsec += calls.usec();
        }
        if (result.shards().size() > 1) {
            row(out, result, "every shard", result.redisCpuNanos(), 1, run, sent, 1,
                    new CommandStats.Calls(scripts, scriptUsec));
        }
        out.printf(Locale.ROOT, "this JVM (nodes and load driver together): %s us CPU per admitted request%n",
                number(result.perAdmitted(result.jvmCpuNanos()), 1));
        out.println("commands run: every command Redis ran, scripts' own calls included; commands sent: FCALL, "
                + "EVALSHA, EVAL, PING, XREAD, SCRIPT LOAD, FUNCTION LOAD (the nodes' round trips); scripts: FCALL, "
                + "EVALSHA and EVAL calls; script us: Redis's time in them");
        out.println("csv,redis_server,nodes,seconds,admitted,cpu_us_per_admitted,cpu_share,commands_run_per_admitted,"
                + "commands_sent_per_admitted,command_share,scripts_per_admitted,script_us_per_admitted,"
                + "jvm_cpu_us_per_admitted");
        for (CostResult.Shard shard : result.shards()) {
            CommandStats.Calls calls = shard.stats().scripts();
            out.println(String.join(",", "csv", shard.address(), Integer.toString(options.nodes()),
                    number(result.nanos() / 1e9, 3), Long.toString(result.counts().admitted()),
                    number(result.perAdmitted(shard.cpuNanos()), 2), number(result.cpuShare(shard), 4),
                    number(result.countPerAdmitted(shard.stats().run()), 3),
                    number(result.countPerAdmitted(shard.stats().sent()), 3), number(result.commandShare(shard), 4),
                    number(result.countPerAdmitted(calls.calls()), 3),
                    number(result.countPerAdmitted(calls.usec()), 2),
                    number(result.perAdmitted(result.jvmCpuNanos()), 2)));
        }
    }

    private static void row(PrintStream out, CostResult result, String name, long cpuNanos, double cpuShare, long run,
                            long sent, double commandShare, CommandStats.Calls scripts) {
        out.printf(Locale.ROOT, ROW, name, number(result.perAdmitted(cpuNanos), 2), percent(cpuShare),
                number(result.countPerAdmitted(run), 3), number(result.countPerAdmitted(sent), 3),
                percent(commandShare), number(result.countPerAdmitted(scripts.calls()), 3),
                number(result.countPerAdmitted(scripts.usec()), 2));
    }

    /** "n/a" for a figure that could not be made (a Redis elsewhere, nothing admitted). */
    private static String number(double value, int decimals) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String percent(double share) {
        return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * share);
    }
}

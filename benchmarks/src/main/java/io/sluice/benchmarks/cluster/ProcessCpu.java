package io.sluice.benchmarks.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * CPU time a process has used, user and system, from Linux's {@code /proc/PID/stat} ({@code utime + stime}, in clock
 * ticks: 10 ms at the usual 100 per second, so a figure over a run of seconds is exact to a few parts in a
 * thousand).
 */
final class ProcessCpu {
    /** Clock ticks per second ({@code getconf CLK_TCK}; 100, Linux's value, if that cannot be run). */
    static final long TICKS_PER_SECOND = ticksPerSecond();

    private ProcessCpu() {
    }

    /** This JVM's CPU time in nanoseconds. */
    static long selfNanos() {
        return nanos(Path.of("/proc/self/stat"));
    }

    /** Process {@code pid}'s CPU time in nanoseconds. */
    static long nanos(long pid) {
        return nanos(Path.of("/proc", Long.toString(pid), "stat"));
    }

    /** Whether {@code pid} is a process this machine runs whose command name starts with {@code prefix}. */
    static boolean runs(long pid, String prefix) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm"), StandardCharsets.US_ASCII)
                    .startsWith(prefix);
        } catch (IOException e) {
            return false;
        }
    }

    private static long nanos(Path stat) {
        String text;
        try {
            text = Files.readString(stat, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + stat + " (CPU times are read from Linux's /proc)", e);
        }
        return ticks(text) * TimeUnit.SECONDS.toNanos(1) / TICKS_PER_SECOND;
    }

    /** {@code utime + stime} (fields 14 and 15) of a {@code /proc/PID/stat} line, in clock ticks. */
    static long ticks(String stat) {
        // the command name (field 2) is in parentheses and may hold spaces and parentheses: count from the last one
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static long ticksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            return getconf.waitFor() == 0 ? Long.parseLong(out) : 100;
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}

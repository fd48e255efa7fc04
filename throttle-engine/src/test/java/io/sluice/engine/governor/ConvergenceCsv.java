package io.sluice.engine.governor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;

/**
 * Writes a simulated run to {@code throttle-engine/target/governor-convergence/NAME.csv} in the form
 * the benchmarks module's {@code ConvergencePlot} draws (docs/BENCHMARKS.md says how): a title and
 * a rate scale, then per window its start, requests per second, refused share and the site's capacity.
 */
final class ConvergenceCsv {
    static final Path DIR = Path.of("target", "governor-convergence");

    private ConvergenceCsv() {
    }

    /** @param rows {time s, requests/s, refused share} per window; capacity as a function of time */
    static void write(String name, String title, List<double[]> rows, DoubleUnaryOperator capacity, double maxRate) {
        StringBuilder csv = new StringBuilder("# title: " + title + "\n");
        csv.append(String.format(Locale.ROOT, "# max-rate: %.1f%n", maxRate));
        csv.append("seconds,requests_per_second,share_refused,capacity\n");
        for (double[] r : rows) {
            csv.append(String.format(Locale.ROOT, "%.0f,%.2f,%.4f,%.1f%n", r[0], r[1], r[2],
                    capacity.applyAsDouble(r[0])));
        }
        try {
            Files.createDirectories(DIR);
            Files.writeString(DIR.resolve(name + ".csv"), csv, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

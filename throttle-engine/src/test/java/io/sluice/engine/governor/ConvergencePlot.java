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
 * Writes a simulated run as CSV and as an SVG chart (requests per second and 429 share over time,
 * with the site's capacity), for docs/BENCHMARKS.md. Output goes to
 * {@code throttle-engine/target/governor-convergence/}.
 */
final class ConvergencePlot {
    static final Path DIR = Path.of("target", "governor-convergence");
    private static final int W = 760;
    private static final int H = 300;
    private static final int LEFT = 50;
    private static final int TOP = 30;
    private static final int PLOT_W = W - LEFT - 60;
    private static final int PLOT_H = H - TOP - 40;

    private ConvergencePlot() {
    }

    /** @param rows {time s, requests/s, 429 share} per window; capacity as a function of time */
    static void write(String name, String title, List<double[]> rows, DoubleUnaryOperator capacity, double maxRate) {
        try {
            Files.createDirectories(DIR);
            StringBuilder csv = new StringBuilder("seconds,requests_per_second,share_429,capacity\n");
            for (double[] r : rows) {
                csv.append(String.format(Locale.ROOT, "%.0f,%.2f,%.4f,%.1f%n", r[0], r[1], r[2],
                        capacity.applyAsDouble(r[0])));
            }
            Files.writeString(DIR.resolve(name + ".csv"), csv, StandardCharsets.UTF_8);
            Files.writeString(DIR.resolve(name + ".svg"), svg(title, rows, capacity, maxRate), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String svg(String title, List<double[]> rows, DoubleUnaryOperator capacity, double maxRate) {
        double end = rows.isEmpty() ? 1 : rows.get(rows.size() - 1)[0] + (rows.size() > 1
                ? rows.get(1)[0] - rows.get(0)[0] : 1);
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", W, H));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", W, H));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">%s</text>%n", LEFT, title));
        for (int i = 0; i <= 4; i++) {
            double value = maxRate * i / 4;
            double y = y(value, maxRate);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>%n", LEFT, LEFT + PLOT_W, y, y,
                    LEFT - 6, y + 4, value));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\">%.0f%%</text>%n", LEFT + PLOT_W + 6,
                    y + 4, 100.0 * i / 4 / 4));
        }
        for (int t = 0; t <= end; t += 60) {
            double x = x(t, end);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#eee\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d s</text>%n", x, x, TOP, TOP + PLOT_H, x,
                    TOP + PLOT_H + 16, t));
        }
        StringBuilder cap = new StringBuilder();
        StringBuilder rate = new StringBuilder();
        StringBuilder share = new StringBuilder();
        for (double[] r : rows) {
            double x = x(r[0], end);
            cap.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y(capacity.applyAsDouble(r[0]), maxRate)));
            rate.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y(r[1], maxRate)));
            // The 429 share uses the right axis: 0-25%.
            share.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y(Math.min(r[2], 0.25) * 4 * maxRate, maxRate)));
        }
        svg.append(polyline(cap, "#999999", "6 4"));
        svg.append(polyline(share, "#D55E00", null));
        svg.append(polyline(rate, "#0072B2", null));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#0072B2\">requests/s (left)</text>"
                + "<text x=\"%d\" y=\"%d\" fill=\"#D55E00\">429 share (right)</text>"
                + "<text x=\"%d\" y=\"%d\" fill=\"#999999\">site capacity</text>%n",
                LEFT + 10, H - 6, LEFT + 170, H - 6, LEFT + 320, H - 6));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static String polyline(CharSequence points, String colour, String dash) {
        return String.format(Locale.ROOT,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>%n", colour,
                dash == null ? "" : " stroke-dasharray=\"" + dash + "\"", points.toString().trim());
    }

    private static double x(double t, double end) {
        return LEFT + PLOT_W * t / end;
    }

    private static double y(double value, double max) {
        return TOP + PLOT_H - PLOT_H * Math.min(value, max) / max;
    }
}

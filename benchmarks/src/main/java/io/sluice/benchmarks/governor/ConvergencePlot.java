package io.sluice.benchmarks.governor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Draws a crawl governor run as an SVG chart (requests per second and refused share over time, with
 * the site's capacity), for docs/BENCHMARKS.md: the real-site pace run ({@link GovernorPaceRun}) and
 * the simulated runs of the engine's {@code ConvergenceTest}, which writes CSV files in the form
 * {@link Run#csv()} writes (two {@code #} lines, title and rate scale, then
 * {@code seconds,requests_per_second,share_refused,capacity} per window).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.governor.ConvergencePlot \
 *      throttle-engine/target/governor-convergence docs/governor
 * </pre>
 */
public final class ConvergencePlot {
    private static final int W = 760;
    private static final int H = 300;
    private static final int LEFT = 50;
    private static final int TOP = 30;
    private static final int PLOT_W = W - LEFT - 60;
    private static final int PLOT_H = H - TOP - 40;

    /**
     * One run.
     *
     * @param title   the chart's title
     * @param maxRate the top of the rate axis
     * @param rows    per window: {start s, requests/s, refused share, site capacity}
     */
    public record Run(String title, double maxRate, List<double[]> rows) {
        public Run {
            rows = List.copyOf(rows);
        }

        public String csv() {
            StringBuilder csv = new StringBuilder();
            csv.append("# title: ").append(title).append('\n');
            csv.append(String.format(Locale.ROOT, "# max-rate: %.1f%n", maxRate));
            csv.append("seconds,requests_per_second,share_refused,capacity\n");
            for (double[] r : rows) {
                csv.append(String.format(Locale.ROOT, "%.0f,%.2f,%.4f,%.1f%n", r[0], r[1], r[2], r[3]));
            }
            return csv.toString();
        }

        static Run parse(String csv) {
            String title = "";
            double maxRate = 0;
            List<double[]> rows = new ArrayList<>();
            for (String line : csv.split("\n")) {
                if (line.startsWith("# title: ")) {
                    title = line.substring("# title: ".length());
                } else if (line.startsWith("# max-rate: ")) {
                    maxRate = Double.parseDouble(line.substring("# max-rate: ".length()).trim());
                } else if (!line.isBlank() && Character.isDigit(line.charAt(0))) {
                    String[] cells = line.split(",");
                    rows.add(new double[] {Double.parseDouble(cells[0]), Double.parseDouble(cells[1]),
                        Double.parseDouble(cells[2]), Double.parseDouble(cells[3])});
                }
            }
            if (maxRate <= 0 || rows.isEmpty()) {
                throw new IllegalArgumentException("not a governor run CSV (no '# max-rate:' line or no rows)");
            }
            return new Run(title, maxRate, rows);
        }
    }

    private ConvergencePlot() {
    }

    /** Writes {@code name.csv} and {@code name.svg} into {@code dir}. */
    public static void write(Path dir, String name, Run run) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(name + ".csv"), run.csv(), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve(name + ".svg"), svg(run), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A rate on the axis: whole numbers as they are, a small site's halves with one decimal. */
    private static String label(double value) {
        return value == Math.rint(value) ? String.format(Locale.ROOT, "%.0f", value)
                : String.format(Locale.ROOT, "%.1f", value);
    }

    /** Draws every CSV of {@code args[0]} into {@code args[1]} (CSV copied beside its SVG). */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ConvergencePlot CSV_DIRECTORY OUTPUT_DIRECTORY");
        }
        try (Stream<Path> files = Files.list(Path.of(args[0]))) {
            for (Path csv : files.filter(path -> path.toString().endsWith(".csv")).sorted().toList()) {
                String name = csv.getFileName().toString().replaceFirst("\\.csv$", "");
                write(Path.of(args[1]), name, Run.parse(Files.readString(csv, StandardCharsets.UTF_8)));
                System.out.println(Path.of(args[1]).resolve(name + ".svg"));
            }
        }
    }

    private static String svg(Run run) {
        List<double[]> rows = run.rows();
        double maxRate = run.maxRate();
        String title = run.title().replace("&", "&amp;").replace("<", "&lt;");
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
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT, LEFT + PLOT_W, y, y,
                    LEFT - 6, y + 4, label(value)));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\">%.0f%%</text>%n", LEFT + PLOT_W + 6,
                    y + 4, 100.0 * i / 4 / 4));
        }
        int tick = end <= 120 ? 10 : 60;
        for (int t = 0; t <= end; t += tick) {
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
            cap.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y(r[3], maxRate)));
            rate.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y(r[1], maxRate)));
            // The refused share uses the right axis: 0-25%.
            share.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y(Math.min(r[2], 0.25) * 4 * maxRate, maxRate)));
        }
        svg.append(polyline(cap, "#999999", "6 4"));
        svg.append(polyline(share, "#D55E00", null));
        svg.append(polyline(rate, "#0072B2", null));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#0072B2\">requests/s (left)</text>"
                + "<text x=\"%d\" y=\"%d\" fill=\"#D55E00\">refused share, 429/503/403 (right)</text>"
                + "<text x=\"%d\" y=\"%d\" fill=\"#999999\">site capacity</text>%n",
                LEFT + 10, H - 6, LEFT + 150, H - 6, LEFT + 400, H - 6));
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

package io.sluice.benchmarks.fleet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of several {@link BrowserFleetRun} outputs together: for each phase and each figure of its {@code csv,}
 * lines, the median and the range over the runs.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.fleet.FleetSummary run-1.txt run-2.txt ...
 * </pre>
 */
public final class FleetSummary {

    private FleetSummary() {
    }

    public static void main(String[] args) throws IOException {
        List<String> header = null;
        Map<String, List<String[]>> phases = new LinkedHashMap<>();
        for (String file : args) {
            for (String line : Files.readAllLines(Path.of(file))) {
                if (!line.startsWith("csv,")) {
                    continue;
                }
                String[] fields = line.substring(4).split(",", -1);
                if (fields[0].equals("phase")) {
                    header = List.of(fields);
                } else {
                    phases.computeIfAbsent(fields[0], phase -> new ArrayList<>()).add(fields);
                }
            }
        }
        if (header == null) {
            System.out.println("no csv lines in " + String.join(", ", args));
            return;
        }
        System.out.printf("median [range] over %d run(s)%n", args.length);
        for (Map.Entry<String, List<String[]>> phase : phases.entrySet()) {
            StringBuilder row = new StringBuilder(phase.getKey()).append(':');
            for (int column = 1; column < header.size(); column++) {
                String figure = figure(phase.getValue(), column);
                if (figure != null) {
                    row.append(' ').append(header.get(column)).append(' ').append(figure).append(';');
                }
            }
            System.out.println(row);
        }
    }

    /** Median and range of a column's numbers, or null when it has none. */
    static String figure(List<String[]> runs, int column) {
        double[] values = runs.stream().filter(fields -> column < fields.length && !fields[column].isEmpty())
                .map(fields -> fields[column]).filter(FleetSummary::numeric).mapToDouble(Double::parseDouble)
                .sorted().toArray();
        if (values.length == 0) {
            return null;
        }
        boolean decimals = runs.stream().anyMatch(fields -> column < fields.length && fields[column].contains("."));
        int n = values.length;
        double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
        return n == 1 ? number(median, decimals) : number(median, decimals) + " [" + number(values[0], decimals) + "-"
                + number(values[n - 1], decimals) + "]";
    }

    private static boolean numeric(String text) {
        try {
            Double.parseDouble(text);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String number(double value, boolean decimals) {
        return String.format(Locale.ROOT, decimals ? "%.1f" : "%.0f", value);
    }
}

package io.sluice.server.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The shipped monitoring files under {@code ops/} (docs/manual/monitoring.md) and the queries they hold. */
final class MonitoringFiles {
    /** A Sluice metric, or Prometheus's own {@code up}, as a whole word in a PromQL expression. */
    private static final Pattern METRIC = Pattern.compile("(?<![A-Za-z0-9_:])(sluice_[a-z0-9_]+|up)(?![A-Za-z0-9_:(])");
    private static final Pattern EXPR = Pattern.compile("^(\\s*)(?:- )?expr:\\s*(.*)$");

    private MonitoringFiles() {
    }

    static Path ops() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("ops/prometheus"))) {
                return dir.resolve("ops");
            }
        }
        throw new IllegalStateException("no ops/ directory above " + Path.of("").toAbsolutePath());
    }

    static Path rules() {
        return ops().resolve("prometheus/sluice-alerts.yml");
    }

    static Path dashboard() {
        return ops().resolve("grafana/sluice.json");
    }

    /**
     * The {@code expr} of every rule: a one-line value, or a folded or literal block ({@code >-}, {@code |}) whose
     * lines are indented deeper than the key. The rules are plain YAML of this one shape; promtool checks the rest.
     */
    static List<String> ruleExpressions() {
        List<String> lines = read(rules());
        List<String> expressions = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = EXPR.matcher(lines.get(i));
            if (!m.matches()) {
                continue;
            }
            String value = m.group(2).trim();
            if (!value.startsWith(">") && !value.startsWith("|")) {
                expressions.add(value);
                continue;
            }
            int keyIndent = m.group(1).length();
            StringBuilder block = new StringBuilder();
            while (i + 1 < lines.size() && (lines.get(i + 1).isBlank()
                    || indent(lines.get(i + 1)) > keyIndent)) {
                block.append(lines.get(++i).trim()).append(' ');
            }
            expressions.add(block.toString().trim());
        }
        return expressions;
    }

    /** Every panel target's {@code expr} and every templating query of the dashboard. */
    static List<String> dashboardExpressions() {
        JsonNode dashboard;
        try {
            dashboard = new ObjectMapper().readTree(dashboard().toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                expressions.add(target.path("expr").asText());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if ("query".equals(variable.path("type").asText())) {
                expressions.add(variable.path("definition").asText());
                expressions.add(variable.path("query").path("query").asText());
            }
        }
        return expressions;
    }

    /** The metric names {@code expressions} read. */
    static Set<String> metricNames(List<String> expressions) {
        Set<String> names = new TreeSet<>();
        for (String expression : expressions) {
            // Label values and legends are quoted; a metric name never is.
            Matcher m = METRIC.matcher(expression.replaceAll("\"[^\"]*\"", "\"\""));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    private static int indent(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == ' ') {
            n++;
        }
        return n;
    }

    static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.sluice.engine.whatif;

import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** A {@link WhatIfReport} as text for a terminal: what {@code sluice-server replay} prints without {@code --json}. */
public final class ReportText {
    private static final int AGENT_WIDTH = 60;

    private ReportText() {
    }

    public static String render(WhatIfReport report) {
        StringBuilder out = new StringBuilder();
        out.append("What-if (").append(report.source()).append("): ")
                .append(report.from() == null ? "no requests" : report.from() + " .. " + report.to()).append('\n');
        out.append("Live side: ").append(report.baseline()).append('\n');
        out.append(String.format(Locale.ROOT, "%,d requests: live refused %,d, the candidate would refuse %,d%n",
                report.requests(), report.liveRefused(), report.candidateRefused()));
        out.append(String.format(Locale.ROOT, "%,d clients treated differently, %,d of them browsers%n",
                report.clientsDiffering(), report.browsersDiffering()));
        if (!report.outcomes().isEmpty()) {
            out.append('\n').append(String.format(Locale.ROOT, "%-8s %-26s %12s %12s %10s%n", "class", "outcome",
                    "live", "candidate", "change"));
            for (WhatIfReport.OutcomeRow row : report.outcomes()) {
                long change = row.candidate() - row.live();
                out.append(String.format(Locale.ROOT, "%-8s %-26s %,12d %,12d %10s", row.requestClass(),
                        row.outcome(), row.live(), row.candidate(), change == 0 ? "" : String.format(Locale.ROOT,
                                "%+,d", change)).stripTrailing()).append('\n');
            }
        }
        if (!report.clients().isEmpty()) {
            out.append('\n').append("Clients treated differently, browsers first");
            if (report.clients().size() < report.clientsDiffering()) {
                out.append(" (the first ").append(report.clients().size()).append(')');
            }
            out.append(":\n");
            out.append(String.format(Locale.ROOT, "%-39s %-8s %9s %9s  %-30s %-30s %s%n", "ip", "class", "requests",
                    "differ", "live", "candidate", "user agent"));
            for (WhatIfReport.ClientDifference client : report.clients()) {
                String agent = client.crawlerName() != null ? client.crawlerName() + ": " + client.userAgent()
                        : client.userAgent();
                out.append(String.format(Locale.ROOT, "%-39s %-8s %,9d %,9d  %-30s %-30s %s%n", client.ip(),
                        client.requestClass(), client.requests(), client.differing(), counts(client.live()),
                        counts(client.candidate()), agent.length() > AGENT_WIDTH
                                ? agent.substring(0, AGENT_WIDTH - 3) + "..." : agent));
            }
        }
        if (report.untrackedRequests() > 0) {
            out.append(String.format(Locale.ROOT, "%n%,d requests came from clients beyond the per-client table: "
                    + "counted in the totals, not listed.%n", report.untrackedRequests()));
        }
        if (!report.notes().isEmpty()) {
            out.append("\nNotes:\n");
            report.notes().forEach(note -> out.append("- ").append(note).append('\n'));
        }
        return out.toString();
    }

    private static String counts(Map<String, Long> byOutcome) {
        return byOutcome.entrySet().stream()
                .map(e -> e.getKey().replace("REFUSE:", "") + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}

package io.sluice.console.whatif;

import io.sluice.engine.RequestClass;
import io.sluice.engine.whatif.WhatIfReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A shadow report read for the operator's question "what would this edit refuse that is served now?": the
 * extra refusals per rule and the clients they fall on (browsers first, as the server orders them).
 *
 * @param requests  requests both policies judged
 * @param refused   requests the candidate would refuse that the live policy served (the sum over rules)
 * @param relieved  requests the live policy refused that the candidate would serve
 * @param rules     the rules that would refuse more, most first
 * @param clients   the clients that would be refused more, browsers first
 * @param browsers  of those, browsers
 */
public record WhatIfSummary(long requests, long refused, long relieved, List<RuleRow> rules,
                            List<ClientRow> clients, long browsers) {
    private static final String REFUSE = "REFUSE:";

    /**
     * One rule that would refuse more.
     *
     * @param rule    the rule in words ("hit stack")
     * @param reason  the rule's name on the wire ({@code HIT_STACK})
     * @param refused requests it would refuse more
     * @param clients clients among those listed it would refuse more
     */
    public record RuleRow(String rule, String reason, long refused, long clients) {
    }

    /**
     * One client the candidate would refuse more.
     *
     * @param refused requests of it the candidate would refuse that the live policy served
     * @param rules   by which rules, in words ("hit stack ×3")
     * @param browser it is a browser: a person, whom a limit should not hit
     */
    public record ClientRow(String ip, String userAgent, RequestClass requestClass, String crawlerName, long refused,
                            String rules, boolean browser) {
    }

    public static WhatIfSummary of(WhatIfReport report) {
        Map<String, Long> extraByRule = new LinkedHashMap<>();
        long relieved = 0;
        for (WhatIfReport.OutcomeRow row : report.outcomes()) {
            if (row.outcome().startsWith(REFUSE)) {
                long extra = row.candidate() - row.live();
                extraByRule.merge(row.outcome(), extra, Long::sum);
            }
        }
        List<ClientRow> clients = new ArrayList<>();
        Map<String, Long> clientsByRule = new LinkedHashMap<>();
        for (WhatIfReport.ClientDifference client : report.clients()) {
            Map<String, Long> extra = extraRefusals(client);
            long refused = extra.values().stream().mapToLong(Long::longValue).sum();
            if (refused > 0) {
                extra.keySet().forEach(rule -> clientsByRule.merge(rule, 1L, Long::sum));
                clients.add(new ClientRow(client.ip(), client.userAgent(), client.requestClass(), client.crawlerName(),
                        refused, words(extra), client.requestClass() == RequestClass.BROWSER));
            }
        }
        List<RuleRow> rules = new ArrayList<>();
        long refused = 0;
        for (Map.Entry<String, Long> rule : extraByRule.entrySet()) {
            if (rule.getValue() > 0) {
                refused += rule.getValue();
                String reason = rule.getKey().substring(REFUSE.length());
                rules.add(new RuleRow(ruleName(reason), reason, rule.getValue(),
                        clientsByRule.getOrDefault(rule.getKey(), 0L)));
            } else {
                relieved -= rule.getValue();
            }
        }
        rules.sort((a, b) -> Long.compare(b.refused(), a.refused()));
        long browsers = clients.stream().filter(ClientRow::browser).count();
        return new WhatIfSummary(report.requests(), refused, relieved, List.copyOf(rules), List.copyOf(clients),
                browsers);
    }

    /** Per refusal outcome, how many more of the client's requests the candidate refuses than the live policy. */
    private static Map<String, Long> extraRefusals(WhatIfReport.ClientDifference client) {
        Map<String, Long> extra = new LinkedHashMap<>();
        Map<String, Long> live = client.live() == null ? Map.of() : client.live();
        if (client.candidate() != null) {
            client.candidate().forEach((outcome, count) -> {
                long more = count - live.getOrDefault(outcome, 0L);
                if (outcome.startsWith(REFUSE) && more > 0) {
                    extra.put(outcome, more);
                }
            });
        }
        return extra;
    }

    private static String words(Map<String, Long> extra) {
        List<String> parts = new ArrayList<>();
        extra.forEach((outcome, count) -> parts.add(ruleName(outcome.substring(REFUSE.length())) + " ×" + count));
        return String.join(", ", parts);
    }

    /** {@code ADDRESS_HIT_STACK} as "address hit stack". */
    static String ruleName(String reason) {
        return reason.toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}

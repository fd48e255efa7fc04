package io.sluice.server.config;

import io.sluice.server.ForwardingPath;
import io.sluice.server.cluster.RedisEndpoint;
import io.sluice.server.ranges.RangesLocation;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What a server option's value must be beyond its type (a count is positive, the upstream is an http URL), kept
 * apart from the options so that one rule serves the command line ({@code --upstream-timeout must be positive})
 * and the configuration file ({@code sluice.conf:12: upstream-timeout must be positive, not '0'}).
 */
public final class OptionRules {
    /** @param check the value (as picocli converted it) to null when it is fine, else what is wrong */
    private record Rule(String key, Function<Object, String> check) {
    }

    private static final List<Rule> RULES = List.of(
            new Rule("upstream", OptionRules::httpUrl),
            positive("upstream-timeout"),
            new Rule("front-path", value -> {
                try {
                    ForwardingPath.parse((String) value);
                    return null;
                } catch (IllegalArgumentException e) {
                    return "must be lean or proxy";
                }
            }),
            positive("max-connections"),
            positive("max-connections-per-address"),
            positive("request-head-timeout"),
            new Rule("min-body-rate", value -> ((Number) value).longValue() < 0 ? "must be 0 or more" : null),
            positive("admin-max-connections"),
            positive("admin-max-per-address"),
            positive("admin-head-timeout"),
            positive("audit-max-mb"),
            positive("audit-keep"),
            new Rule("crawler-ranges", value -> {
                try {
                    new RangesLocation((String) value);
                    return null;
                } catch (IllegalArgumentException e) {
                    return e.getMessage();
                }
            }),
            positive("crawler-ranges-refresh-hours"),
            new Rule("redis", value -> {
                try {
                    RedisEndpoint.parse((String) value, null);
                    return null;
                } catch (IllegalArgumentException e) {
                    return e.getMessage();
                }
            }));

    private OptionRules() {
    }

    /** Each option of {@code spec} whose value breaks its rule, by key (the long name without dashes). */
    public static Map<String, String> broken(CommandSpec spec) {
        Map<String, String> broken = new LinkedHashMap<>();
        for (Rule rule : RULES) {
            String problem = check(spec, rule.key());
            if (problem != null) {
                broken.put(rule.key(), problem);
            }
        }
        return broken;
    }

    /** What is wrong with option {@code key}'s value in {@code spec}, or null (fine, unset, or without a rule). */
    static String check(CommandSpec spec, String key) {
        OptionSpec option = spec.findOption("--" + key);
        Object value = option == null ? null : option.getValue();
        if (value == null) {
            return null;
        }
        for (Rule rule : RULES) {
            if (rule.key().equals(key)) {
                return rule.check().apply(value);
            }
        }
        return null;
    }

    /**
     * {@code KEY must ..., not 'VALUE'} ({@code name} being {@code --key} on the command line, {@code key} in the
     * file); a message that names its subject itself stays whole.
     */
    public static String message(String name, String problem, String value) {
        return problem.startsWith("must") ? name + " " + problem + ", not '" + value + "'" : name + ": " + problem;
    }

    private static Rule positive(String key) {
        return new Rule(key, value -> ((Number) value).longValue() < 1 ? "must be positive" : null);
    }

    private static String httpUrl(Object value) {
        URI upstream = (URI) value;
        return upstream.getHost() == null || upstream.getScheme() == null || !upstream.getScheme().matches("https?")
                ? "must be an http:// or https:// URL" : null;
    }
}

package io.sluice.server.config;

import java.util.List;
import java.util.stream.Collectors;

/** A configuration file that cannot be used: every problem found, each naming its line. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    public ConfigException(List<ConfigProblem> problems) {
        super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public List<ConfigProblem> problems() {
        return problems;
    }
}

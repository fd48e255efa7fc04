package io.sluice.server.admin;

import io.sluice.server.state.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The methods a {@link Resource} allows and the role each one needs, declared by the resource beside the code
 * that serves them: a method is allowed only with its role, so a route cannot be added without saying who may
 * call it. {@link Permissions} compares the caller's role with the declared one.
 *
 * @param rules in the order the {@code Allow} header lists them
 */
public record Access(List<Rule> rules) {
    private static final Set<String> READS = Set.of("GET", "HEAD");

    /** One allowed method and the role it needs ({@code admin} holds every role). */
    public record Rule(String method, Role role) {
        public Rule {
            if (method == null || method.isBlank() || !method.equals(method.toUpperCase(Locale.ROOT))) {
                throw new IllegalArgumentException("a method is an upper-case HTTP method, not '" + method + "'");
            }
            if (role == null) {
                throw new IllegalArgumentException(method + " is allowed without a role");
            }
            // A read token changes nothing: that is the promise a Prometheus or dashboard token is given.
            if (role == Role.READ && !READS.contains(method)) {
                throw new IllegalArgumentException(method + " changes something: it cannot be opened to read");
            }
        }
    }

    public Access {
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("a resource allows at least one method");
        }
        if (rules.stream().map(Rule::method).distinct().count() != rules.size()) {
            throw new IllegalArgumentException("a method is declared twice: " + rules);
        }
        rules = List.copyOf(rules);
    }

    /** Allows {@code method} to callers holding {@code role}. */
    public static Access of(String method, Role role) {
        return new Access(List.of(new Rule(method, role)));
    }

    /** This access, and {@code method} allowed to callers holding {@code role}. */
    public Access and(String method, Role role) {
        List<Rule> more = new ArrayList<>(rules);
        more.add(new Rule(method, role));
        return new Access(more);
    }

    /** The role {@code method} needs, or null when it is not allowed here (a 405). */
    public Role role(String method) {
        return rules.stream().filter(rule -> rule.method().equals(method)).map(Rule::role).findFirst().orElse(null);
    }

    /** The allowed methods, as the {@code Allow} header lists them. */
    public List<String> methods() {
        return rules.stream().map(Rule::method).toList();
    }
}

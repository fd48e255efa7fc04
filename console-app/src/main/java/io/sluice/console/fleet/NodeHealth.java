package io.sluice.console.fleet;

/** How a node stands, for the fleet's colours: each maps to one style class and one looked-up colour. */
public enum NodeHealth {
    /** It reaches Redis within the deadline. */
    HEALTHY("node-healthy"),
    /** Its Redis link was slow or lost lately: it serves on local state, with limits scaled. */
    DEGRADED("node-degraded"),
    /** Not heard from lately: stopped, partitioned or gone. Its load no longer counts in the totals. */
    UNREACHABLE("node-unreachable"),
    /** A state this console does not know (a newer server's). */
    UNKNOWN("node-unknown");

    private final String styleClass;

    NodeHealth(String styleClass) {
        this.styleClass = styleClass;
    }

    /** The style class a row or badge in this state carries (colours in {@code FleetView.css}). */
    public String styleClass() {
        return styleClass;
    }
}

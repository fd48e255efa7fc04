package io.sluice.server.cluster;

/**
 * The cluster's browser pass key ring as Redis holds it: its text (as {@code PassKeyFile} writes it), unparsed, so a
 * ring this node cannot read is refused by the one who reads it; and who published it, when.
 *
 * @param text     the ring's text, or null when Redis holds none
 * @param node     the node that published it ("" when unknown)
 * @param atMillis when, epoch milliseconds (0 when unknown)
 */
record SharedRing(String text, String node, long atMillis) {
    static final SharedRing NONE = new SharedRing(null, "", 0);

    SharedRing {
        node = node == null ? "" : node;
    }

    boolean exists() {
        return text != null;
    }
}

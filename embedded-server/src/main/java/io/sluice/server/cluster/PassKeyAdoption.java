package io.sluice.server.cluster;

import io.sluice.engine.check.PassKeyRing;
import io.sluice.server.state.PassKeyFile;

/**
 * What a node of a cluster does with its browser pass key ring, given its own (its state directory's file) and the
 * cluster's (in Redis). The rules, without Redis or files, so they are tested alone:
 *
 * <ul>
 *   <li>the cluster has no ring: publish this node's (the first node of a cluster, or Redis restarted empty);</li>
 *   <li>the cluster's cannot be parsed: refuse it and keep this node's (a newer node's format, or damage: never a
 *       ring this node cannot read, which would log every visitor out);</li>
 *   <li>the same ring: nothing to do;</li>
 *   <li>this node's ring is a rotation of the cluster's (its previous key is the cluster's current key, and its
 *       current key is another): an operator ran {@code sluice-server pass-key rotate} here, publish it. A rotation
 *       made on a node that was away while the cluster rotated is no rotation of the cluster's ring, and is lost:
 *       the cluster's wins;</li>
 *   <li>anything else: adopt the cluster's ring.</li>
 * </ul>
 */
final class PassKeyAdoption {

    /** What to do. */
    sealed interface Step permits Keep, Publish, Adopt, Refuse {
    }

    /** This node's ring is the cluster's. */
    record Keep() implements Step {
    }

    /**
     * Put this node's ring into the cluster if the cluster still holds {@code expected} (null: none).
     *
     * @param rotation whether it is a rotation of the cluster's ring (else the cluster's first ring)
     */
    record Publish(String expected, boolean rotation) implements Step {
    }

    /** Take the cluster's ring, {@code ring}. */
    record Adopt(PassKeyRing ring) implements Step {
    }

    /** The cluster's ring cannot be read: keep this node's; {@code reason} says what is wrong with it. */
    record Refuse(String reason) implements Step {
    }

    private PassKeyAdoption() {
    }

    static Step decide(PassKeyRing local, SharedRing shared) {
        if (!shared.exists()) {
            return new Publish(null, false);
        }
        PassKeyRing cluster;
        try {
            cluster = PassKeyFile.parse(shared.text());
        } catch (IllegalArgumentException e) {
            return new Refuse(e.getMessage());
        }
        if (cluster.equals(local)) {
            return new Keep();
        }
        if (rotationOf(local, cluster)) {
            return new Publish(shared.text(), true);
        }
        return new Adopt(cluster);
    }

    /** Whether {@code ring} was made by rotating {@code from}: its previous key is from's current one. */
    static boolean rotationOf(PassKeyRing ring, PassKeyRing from) {
        return ring.previous() != null && ring.previous().equals(from.current())
                && !ring.current().equals(from.current());
    }
}

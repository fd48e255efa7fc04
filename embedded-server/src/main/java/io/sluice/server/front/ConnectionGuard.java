package io.sluice.server.front;

import io.sluice.engine.policy.Policy;
import java.time.Duration;
import java.util.function.Supplier;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;

/**
 * What protects the public listener from slow and numerous sockets (docs/architecture.md, "Under attack"), with
 * nginx's {@code limit_conn}, {@code client_header_timeout} and {@code client_body_timeout} as the yardstick: a cap
 * on the connections one address holds ({@link AddressConnectionLimit}), a deadline for each request head and a
 * minimum data rate for request bodies ({@link RequestTimer}), on the lean path and the proxy path alike. What it
 * cuts off is counted in {@link #shed()}.
 *
 * <p>Installed on a connector as a bean, where that connector's connections find it.
 *
 * <p>The limits can change while it runs ({@link #update}, on a configuration reload): they are read afresh at each
 * new connection and each deadline check. A lower per-address cap closes nothing already open (an address above it
 * gets no new connection until it is under); a new head deadline or body rate applies to the requests being timed
 * from their next check on, measured from when their head or body began.
 */
public final class ConnectionGuard {
    public static final int DEFAULT_PER_ADDRESS = 64;
    public static final Duration DEFAULT_HEAD_TIMEOUT = Duration.ofSeconds(10);
    /** Apache's {@code mod_reqtimeout} default: 500 bytes a second. */
    public static final long DEFAULT_MIN_BODY_RATE = 500;

    private final ShedConnections shed = new ShedConnections();
    private volatile Limits limits;

    /** The three limits, swapped whole. */
    private record Limits(int perAddress, long headTimeoutNanos, long minBodyBytesPerSecond) {
        static Limits of(int perAddress, Duration headTimeout, long minBodyBytesPerSecond) {
            if (perAddress < 1 || headTimeout.isNegative() || headTimeout.isZero() || minBodyBytesPerSecond < 0) {
                throw new IllegalArgumentException("the connections per address and the head timeout must be "
                        + "positive, the minimum body rate 0 or more");
            }
            return new Limits(perAddress, headTimeout.toNanos(), minBodyBytesPerSecond);
        }
    }

    /**
     * @param perAddress            connections one address (IPv6: one /64) may hold open at once
     * @param headTimeout           the time a request head has to arrive whole
     * @param minBodyBytesPerSecond the slowest a request body may arrive once read (0: no minimum)
     */
    public ConnectionGuard(int perAddress, Duration headTimeout, long minBodyBytesPerSecond) {
        this.limits = Limits.of(perAddress, headTimeout, minBodyBytesPerSecond);
    }

    /** New limits from now on (see the class comment for what they do to connections already open). */
    public void update(int perAddress, Duration headTimeout, long minBodyBytesPerSecond) {
        limits = Limits.of(perAddress, headTimeout, minBodyBytesPerSecond);
    }

    /** Guards {@code connector}'s connections, with the trusted proxies of the live {@code policy} left uncapped. */
    public void install(ServerConnector connector, Supplier<Policy> policy) {
        connector.addBean(new AddressConnectionLimit(this::perAddress, new TrustedProxies(policy), shed));
        connector.addBean(this);
    }

    /** The guard installed on {@code connector}, or null (then its connections have no deadlines). */
    static ConnectionGuard of(Connector connector) {
        return connector.getBean(ConnectionGuard.class);
    }

    /** The deadlines of a new connection of {@code connector}'s, or null when it is not guarded. */
    static RequestTimer timerFor(Connector connector, EndPoint endPoint) {
        ConnectionGuard guard = of(connector);
        return guard == null ? null : new RequestTimer(endPoint, connector.getScheduler(), guard);
    }

    /** What the guard has cut off since start. */
    public ShedConnections shed() {
        return shed;
    }

    int perAddress() {
        return limits.perAddress();
    }

    long headTimeoutNanos() {
        return limits.headTimeoutNanos();
    }

    long minBodyBytesPerSecond() {
        return limits.minBodyBytesPerSecond();
    }
}

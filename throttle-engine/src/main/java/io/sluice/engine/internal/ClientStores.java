package io.sluice.engine.internal;

/**
 * The engine's two per-key stores, typed together: the clients' handles ({@code C}) can carry the handle of
 * their address aggregate ({@code A}), so a client's request reaches its address without a second lookup (see
 * {@link AggregateLink}).
 *
 * @param clients   rules 3-5 per client (address and user agent)
 * @param addresses the per-address aggregates (every user agent of an IPv4 address or an IPv6 prefix)
 */
public record ClientStores<C extends AggregateLink<A>, L, A, M>(ClientStateStore<C, L> clients,
                                                                ClientStateStore<A, M> addresses) {

    /** Both stores in memory, for one node. */
    public static ClientStores<ClientState, ClientState, ClientState, ClientState> local(
            LocalClientStateStore clients, LocalClientStateStore addresses) {
        return new ClientStores<>(clients, addresses);
    }
}

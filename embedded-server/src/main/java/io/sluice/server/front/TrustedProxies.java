package io.sluice.server.front;

import io.sluice.engine.net.CidrSet;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Policy;
import java.util.List;
import java.util.function.Supplier;

/**
 * Whether an address is one of the live policy's trusted proxies, for the listener (a trusted proxy carries many
 * clients, so no per-address cap applies to it). The set is built once per policy list, not per connection.
 */
final class TrustedProxies {
    private final Supplier<Policy> policy;
    private volatile Compiled compiled = new Compiled(List.of(), CidrSet.empty());

    private record Compiled(List<String> source, CidrSet set) {
    }

    TrustedProxies(Supplier<Policy> policy) {
        this.policy = policy;
    }

    boolean contains(IpAddress address) {
        List<String> live = policy.get().trustedProxies();
        Compiled current = compiled;
        if (current.source() != live) {
            // The policy was validated before it went live: its entries parse.
            current = new Compiled(live, CidrSet.parse(live));
            compiled = current;
        }
        return current.set().contains(address);
    }
}

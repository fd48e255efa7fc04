package io.sluice.engine.internal;

import io.sluice.engine.net.IpAddress;

/**
 * A client's identity: the pair (IP, user agent). The address is held parsed (32 bytes, against about
 * 56 for its text), since a key lives as long as its client is tracked.
 *
 * @param address   the resolved client address
 * @param userAgent the user agent, empty when absent
 */
public record ClientKey(IpAddress address, String userAgent) {

    /** The canonical text of the address. */
    public String ip() {
        return address.toString();
    }
}

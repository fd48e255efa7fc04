package io.sluice.engine.telemetry;

/**
 * The IP-to-ASN file a server uses ({@code --asn-file}), as loaded: where from and how much it holds.
 *
 * @param source     the file, as the operator named it
 * @param ipv4Ranges routed IPv4 ranges
 * @param ipv6Ranges routed IPv6 ranges
 * @param systems    autonomous systems with a description
 */
public record AsnTableStats(String source, int ipv4Ranges, int ipv6Ranges, int systems) {
}

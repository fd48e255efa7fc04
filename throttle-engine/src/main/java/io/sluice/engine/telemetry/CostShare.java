package io.sluice.engine.telemetry;

/**
 * The key (a class, a network, a route) holding the largest share of the upstream's time over the last minute.
 *
 * @param key           the class's name, the network's CIDR or the route's path ({@code (no route)} for requests
 *                      matched by none)
 * @param share         its share of the upstream's time over the last minute, 0 to 1
 * @param recentShare   its share over the newer half of that minute
 * @param earlierShare  its share over the older half
 * @param rising        whether its share is rising: the newer half's share is above the older half's by more than
 *                      a twentieth of the whole
 */
public record CostShare(String key, double share, double recentShare, double earlierShare, boolean rising) {
}

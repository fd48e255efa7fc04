package io.sluice.server.cluster;

/**
 * The slots one admitted request holds in Redis: its lease in the client's and the address's sets, and, for a
 * crawler, the turn it took (what to put back if it is not served after all).
 *
 * @param clientLeases  the client's lease set
 * @param addressLeases the address's lease set
 * @param id            this lease ({@code node:incarnation:sequence}, unique in the cluster)
 * @param crawler       this crawler's last-service key, or null for another class
 * @param anyCrawler    any crawler's last-service key
 * @param servedAt      for a crawler, the service time the admission recorded (Redis's ms)
 * @param previous      the crawler's service before it (-1: never)
 * @param previousAny   any crawler's service before it (-1: never)
 * @param takenNanos    when this node took it ({@link System#nanoTime()}), to renew the long ones
 */
record RedisLease(String clientLeases, String addressLeases, String id, String crawler, String anyCrawler,
                  long servedAt, long previous, long previousAny, long takenNanos) {
}

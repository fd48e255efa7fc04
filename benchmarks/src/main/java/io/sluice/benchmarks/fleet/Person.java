package io.sluice.benchmarks.fleet;

/** A person's browser: loads a page of the site and its assets, through the browser check when it asks. */
interface Person extends AutoCloseable {

    /**
     * One page load, ended when the page the person asked for is loaded with all its assets (failed: another page, an
     * asset missing, or not within the timeout).
     *
     * @param startNanos    when it was started ({@link System#nanoTime})
     * @param millis        how long it took, until loaded or given up
     * @param ok            the page and its {@value PageSite#ASSETS} assets loaded
     * @param interstitials interstitials met on the way (the browser check asked)
     * @param note          why it failed, and what it can say of its requests (statuses, the slowest)
     */
    record Load(long startNanos, long millis, boolean ok, int interstitials, String note) {
    }

    /** Loads {@code path} of the site (through the front end), giving up after {@code timeoutMillis}. */
    Load load(String path, long timeoutMillis) throws InterruptedException;

    /** What is loading the pages, for the report. */
    String describe();

    @Override
    void close();
}

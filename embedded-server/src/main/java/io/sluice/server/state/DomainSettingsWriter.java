package io.sluice.server.state;

import io.sluice.engine.governor.DomainSettings;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Saves the crawl governor's {@code domains.json}, one writer at a time, always with the newest
 * settings. Operator actions and give-ups (the latter from any worker's feedback) can change the
 * settings on many threads at once; each change asks for a save, and a save reads the settings only
 * once it holds the lock, so the file a writer leaves is never older than the change that asked for
 * it, and two writers never interleave. Changes that arrive while a save runs are covered by one
 * save after it (a group commit), so a burst of give-ups costs a few fsyncs, not one each.
 */
public final class DomainSettingsWriter {
    private static final System.Logger LOG = System.getLogger(DomainSettingsWriter.class.getName());

    private final StateDirectory state;
    private final Supplier<Map<String, DomainSettings>> settings;
    private final AtomicLong requested = new AtomicLong();
    private final Object lock = new Object();
    private long saved;

    /** @param settings read at save time, e.g. {@code governor::settings} */
    public DomainSettingsWriter(StateDirectory state, Supplier<Map<String, DomainSettings>> settings) {
        this.state = state;
        this.settings = settings;
    }

    /**
     * Returns once a save that began after this call has finished (or failed). A failure is logged,
     * not thrown: the change has happened in memory and a disk failure must not undo it.
     */
    public void save() {
        long mine = requested.incrementAndGet();
        synchronized (lock) {
            if (saved >= mine) {
                return; // a save that started after our request has written our change already
            }
            long covers = requested.get();
            try {
                state.saveDomainSettings(settings.get());
                saved = covers;
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "cannot save the crawl governor's domain settings to "
                        + state.path().resolve(StateDirectory.DOMAINS) + ": " + e.getMessage(), e);
            }
        }
    }
}

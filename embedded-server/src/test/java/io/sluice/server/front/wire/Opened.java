package io.sluice.server.front.wire;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** What a test opened (servers, clients, upstreams), closed after it, last first: a field marked {@code @AutoClose}. */
public final class Opened implements AutoCloseable {
    private final List<AutoCloseable> all = new ArrayList<>();

    public <T extends AutoCloseable> T add(T resource) {
        all.add(resource);
        return resource;
    }

    @Override
    public void close() throws IOException {
        try {
            for (int i = all.size() - 1; i >= 0; i--) {
                all.get(i).close();
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }
}

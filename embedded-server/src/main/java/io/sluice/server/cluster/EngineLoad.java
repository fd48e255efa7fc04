package io.sluice.server.cluster;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.telemetry.SecondCounts;
import java.util.List;

/** A front end's engine as the cluster sees it. */
public final class EngineLoad implements LocalLoad {
    private final ThrottleEngine engine;

    public EngineLoad(ThrottleEngine engine) {
        this.engine = engine;
    }

    @Override
    public long inFlight() {
        return engine.inFlight();
    }

    @Override
    public long policyVersion() {
        return engine.policy().version();
    }

    @Override
    public void othersInFlight(long requests) {
        engine.reportLoadElsewhere(requests);
    }

    @Override
    public List<SecondCounts> lastMinute() {
        List<SecondCounts> seconds = engine.secondCounts();
        // The newest entry is the second in progress; report the 60 complete ones before it.
        int end = Math.max(0, seconds.size() - 1);
        return List.copyOf(seconds.subList(Math.max(0, end - 60), end));
    }
}

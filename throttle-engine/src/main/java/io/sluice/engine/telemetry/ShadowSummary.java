package io.sluice.engine.telemetry;

import java.time.Instant;

/**
 * The shadow policy at a glance, for the console (the full report is {@code GET /api/v1/policy/shadow}).
 * Counts cover the report's recent window.
 *
 * @param installedAt          when the candidate was installed
 * @param windowSeconds        the window the counts cover (shorter right after installation)
 * @param requests             requests judged by both policies in the window
 * @param liveRefused          of those, refused by the live policy
 * @param candidateRefused     of those, that the candidate would have refused
 * @param clientsDiffering     clients with at least one request the two policies treat differently
 * @param browsersDiffering    of those, browsers
 * @param dropped              requests the shadow did not see since installation because it could not keep up
 */
public record ShadowSummary(
        Instant installedAt,
        long windowSeconds,
        long requests,
        long liveRefused,
        long candidateRefused,
        int clientsDiffering,
        int browsersDiffering,
        long dropped) {
}

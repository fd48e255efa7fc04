package io.sluice.console.api;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.whatif.WhatIfReport;
import java.time.Instant;

/**
 * The shadow policy as {@code GET} and {@code PUT /api/v1/policy/shadow} answer it.
 *
 * @param policy         the candidate
 * @param installedAt    when it was installed (its counts start there)
 * @param basedOnVersion the live policy's version when it was installed
 * @param liveVersion    the live policy's version now: promote with {@code If-Match} on it
 * @param report         what it would have done, next to what the live policy did
 */
public record ShadowView(Policy policy, Instant installedAt, long basedOnVersion, long liveVersion,
                         WhatIfReport report) {
}

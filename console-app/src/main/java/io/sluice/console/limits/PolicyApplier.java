package io.sluice.console.limits;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.engine.policy.Policy;

/**
 * What Apply does with the edited policy. By default it replaces the live policy ({@code PUT /api/v1/policy});
 * a what-if preview installs it as the shadow first and makes Apply promote it instead.
 */
@FunctionalInterface
public interface PolicyApplier {
    /** Makes {@code proposed} the live policy if the live one is still at {@code basedOnVersion}. */
    AdminClient.PolicyUpdate apply(Policy proposed, long basedOnVersion) throws AdminException;
}

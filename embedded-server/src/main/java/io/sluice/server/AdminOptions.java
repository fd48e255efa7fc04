package io.sluice.server;

import io.sluice.server.state.AuditLog;
import io.sluice.server.tls.AdminTls;
import java.util.Set;

/**
 * How the admin listener is reached and what it keeps: the CLI's {@code --admin-*} and {@code --audit-*}
 * flags.
 *
 * @param tls           serve HTTPS
 * @param certificate   the operator's certificate, or {@link AdminTls.Settings#SELF_SIGNED}
 * @param insecure      allow plain HTTP on an address other than loopback (the operator says so)
 * @param hostNames     names the listener answers to (Host check) besides addresses and localhost; also put in
 *                      the self-signed certificate
 * @param auditMaxBytes the size at which the audit log rotates
 * @param auditKeep     rotated audit files kept
 */
public record AdminOptions(boolean tls, AdminTls.Settings certificate, boolean insecure, Set<String> hostNames,
                           long auditMaxBytes, int auditKeep) {

    public static final AdminOptions DEFAULTS = new AdminOptions(false, AdminTls.Settings.SELF_SIGNED, false, Set.of(),
            AuditLog.DEFAULT_MAX_BYTES, AuditLog.DEFAULT_KEEP);

    public AdminOptions {
        certificate = certificate == null ? AdminTls.Settings.SELF_SIGNED : certificate;
        hostNames = hostNames == null ? Set.of() : Set.copyOf(hostNames);
    }

    /** HTTPS with Sluice's self-signed certificate (or the given one). */
    public AdminOptions withTls(AdminTls.Settings settings) {
        return new AdminOptions(true, settings, insecure, hostNames, auditMaxBytes, auditKeep);
    }

    public AdminOptions withAudit(long maxBytes, int keep) {
        return new AdminOptions(tls, certificate, insecure, hostNames, maxBytes, keep);
    }
}

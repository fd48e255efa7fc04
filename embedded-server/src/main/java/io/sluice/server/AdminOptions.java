package io.sluice.server;

import io.sluice.server.admin.AdminConnections;
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
 * @param strangers     how the admin listener holds connections that have not yet presented a live token
 */
public record AdminOptions(boolean tls, AdminTls.Settings certificate, boolean insecure, Set<String> hostNames,
                           long auditMaxBytes, int auditKeep, AdminConnections.Rules strangers) {

    public static final AdminOptions DEFAULTS = new AdminOptions(false, AdminTls.Settings.SELF_SIGNED, false, Set.of(),
            AuditLog.DEFAULT_MAX_BYTES, AuditLog.DEFAULT_KEEP, AdminConnections.Rules.DEFAULTS);

    public AdminOptions {
        certificate = certificate == null ? AdminTls.Settings.SELF_SIGNED : certificate;
        hostNames = hostNames == null ? Set.of() : Set.copyOf(hostNames);
        strangers = strangers == null ? AdminConnections.Rules.DEFAULTS : strangers;
    }

    /** With the default rules for connections that have not yet presented a token. */
    public AdminOptions(boolean tls, AdminTls.Settings certificate, boolean insecure, Set<String> hostNames,
                        long auditMaxBytes, int auditKeep) {
        this(tls, certificate, insecure, hostNames, auditMaxBytes, auditKeep, AdminConnections.Rules.DEFAULTS);
    }

    /** HTTPS with Sluice's self-signed certificate (or the given one). */
    public AdminOptions withTls(AdminTls.Settings settings) {
        return new AdminOptions(true, settings, insecure, hostNames, auditMaxBytes, auditKeep, strangers);
    }

    public AdminOptions withAudit(long maxBytes, int keep) {
        return new AdminOptions(tls, certificate, insecure, hostNames, maxBytes, keep, strangers);
    }

    /** How connections that have not yet presented a live token are held (per address, and for how long). */
    public AdminOptions withStrangers(AdminConnections.Rules rules) {
        return new AdminOptions(tls, certificate, insecure, hostNames, auditMaxBytes, auditKeep, rules);
    }
}

package io.sluice.server.state;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.policy.PolicyJson;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A large audit log written straight to disk (no fsync per entry): {@code files} files of {@code perFile} entries,
 * each holding a policy-sized {@code after} of about {@code payloadChars} characters, numbered from 1, the oldest in
 * {@code audit.log.(files-1)}, the newest in {@code audit.log}.
 */
public final class LargeAudit {
    private LargeAudit() {
    }

    /** Writes the files into {@code dir} and returns the number of entries. */
    public static int write(Path dir, int files, int perFile, int payloadChars) throws IOException {
        int seq = 0;
        for (int index = files - 1; index >= 0; index--) {
            Path file = dir.resolve(index == 0 ? "audit.log" : "audit.log." + index);
            try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                for (int i = 0; i < perFile; i++) {
                    seq++;
                    ObjectNode after = JsonNodeFactory.instance.objectNode();
                    after.put("version", seq);
                    after.put("bans", "b".repeat(payloadChars));
                    out.write(PolicyJson.mapper().writeValueAsString(new AuditEntry(seq,
                            Instant.parse("2026-11-22T10:00:00Z").plusSeconds(seq), "ops", null, "policy.replace",
                            "change " + seq, null, after)));
                    out.write('\n');
                }
            }
        }
        return seq;
    }
}

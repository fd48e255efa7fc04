package io.sluice.server.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Whole-file writes that a crash can never leave half done: temp file, fsync, atomic rename, fsync dir. */
final class AtomicFiles {
    private AtomicFiles() {
    }

    static void write(Path target, byte[] content) throws IOException {
        // A temp file of its own per write: two writers sharing one name could interleave their bytes
        // and rename a mixed file into place.
        Path temp = Files.createTempFile(target.toAbsolutePath().getParent(), target.getFileName() + ".", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
        syncDirectory(target.toAbsolutePath().getParent());
    }

    /** Makes a rename durable; not every platform can open a directory, which is then best effort. */
    static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Windows cannot open a directory for reading; the rename is still atomic there.
        }
    }
}

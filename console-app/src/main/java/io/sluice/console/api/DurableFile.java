package io.sluice.console.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Replaces one of the operator's small files (the servers and tokens the console remembers, the certificates it
 * pins) so that neither a crash nor a power cut leaves it half written, empty or gone: a temp file beside it
 * (owner-only, a name of its own), written and fsynced, renamed over it atomically, then the directory fsynced, so
 * that the rename is on the disk too and not only in the kernel's memory.
 */
public final class DurableFile {
    /** What writes the operator's files: to the disk, through {@link FileChannel#force}. */
    public static final DurableFile SYSTEM = new DurableFile((channel, path) -> channel.force(true));

    /** Forces what was written to {@code path}'s channel (a file's, or a directory's) onto the disk. */
    interface Sync {
        void force(FileChannel channel, Path path) throws IOException;
    }

    private final Sync sync;

    DurableFile(Sync sync) {
        this.sync = sync;
    }

    /** Replaces {@code file} with {@code content}, creating its directory if needed; on the disk when it returns. */
    public void write(Path file, byte[] content) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path temp = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? Files.createTempFile(parent, "." + file.getFileName(), ".tmp",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
                : Files.createTempFile(parent, "." + file.getFileName(), ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                sync.force(channel, temp);
            }
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
        try (FileChannel directory = FileChannel.open(parent, StandardOpenOption.READ)) {
            sync.force(directory, parent);
        } catch (IOException | UnsupportedOperationException e) {
            // Not every platform can open a directory to sync it (Windows); the rename itself is atomic.
        }
    }
}

package io.sluice.server.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * Whole-file writes that a crash can never leave half done: a temp file of a name nobody can guess,
 * created new (never opened through a link someone planted, never shared with a concurrent writer),
 * owner-only, fsynced, atomically renamed over the target, then the directory fsynced.
 */
public final class AtomicFiles {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<OpenOption> CREATE_NEW = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);

    private AtomicFiles() {
    }

    public static void write(Path target, byte[] content) throws IOException {
        write(target, content, StateOwner.PROCESS);
    }

    /** {@link #write(Path, byte[])}, the file given to {@code owner} before it takes the target's place. */
    static void write(Path target, byte[] content, StateOwner owner) throws IOException {
        Path temp = target.resolveSibling("." + target.getFileName() + "." + HexFormat.of().formatHex(randomBytes())
                + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, CREATE_NEW, ownerOnly())) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            owner.adopt(temp);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
        syncDirectory(target.toAbsolutePath().getParent());
    }

    /** Read and write for the owner only, from the moment the file exists (empty where POSIX modes are unknown). */
    static FileAttribute<?>[] ownerOnly() {
        return posix() ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------"))} : new FileAttribute<?>[0];
    }

    static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return bytes;
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

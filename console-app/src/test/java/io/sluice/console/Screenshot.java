package io.sluice.console;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.DeflaterOutputStream;
import javafx.scene.Scene;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;

/** A scene as a PNG file (the toolkit's snapshot, written without AWT), for a person to look at. */
final class Screenshot {
    private Screenshot() {
    }

    /** Call on the FX thread. */
    static void save(Scene scene, Path file) {
        WritableImage image = scene.snapshot(null);
        int width = (int) image.getWidth();
        int height = (int) image.getHeight();
        PixelReader pixels = image.getPixelReader();
        try {
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            try (DataOutputStream rows = new DataOutputStream(new DeflaterOutputStream(raw))) {
                for (int y = 0; y < height; y++) {
                    rows.writeByte(0); // no filter
                    for (int x = 0; x < width; x++) {
                        int argb = pixels.getArgb(x, y);
                        rows.writeByte(argb >> 16);
                        rows.writeByte(argb >> 8);
                        rows.writeByte(argb);
                    }
                }
            }
            ByteArrayOutputStream png = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(png);
            out.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
            ByteArrayOutputStream header = new ByteArrayOutputStream();
            DataOutputStream fields = new DataOutputStream(header);
            fields.writeInt(width);
            fields.writeInt(height);
            fields.write(new byte[] {8, 2, 0, 0, 0}); // 8 bits, RGB, deflate, no filter, no interlace
            chunk(out, "IHDR", header.toByteArray());
            chunk(out, "IDAT", raw.toByteArray());
            chunk(out, "IEND", new byte[0]);
            Files.createDirectories(file.getParent());
            Files.write(file, png.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void chunk(DataOutputStream out, String type, byte[] data) throws IOException {
        byte[] name = type.getBytes(StandardCharsets.US_ASCII);
        CRC32 crc = new CRC32();
        crc.update(name);
        crc.update(data);
        out.writeInt(data.length);
        out.write(name);
        out.write(data);
        out.writeInt((int) crc.getValue());
    }
}

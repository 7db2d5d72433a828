package dev.sandbox4j.tools;

import dev.sandbox4j.FileInfo;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/** Text/binary detection, MIME types, thumbnails and directory trees for {@code view} and {@code read_file}. */
final class Views {
    static final int THUMBNAIL_SIDE = 256;

    private Views() {
    }

    /** The bytes as strict UTF-8, or null if they hold a NUL or are not valid UTF-8. */
    static String strictText(byte[] bytes) {
        for (byte b : bytes) {
            if (b == 0) {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static boolean hasNul(byte[] bytes) {
        for (byte b : bytes) {
            if (b == 0) {
                return true;
            }
        }
        return false;
    }

    private static final Map<String, String> BY_EXTENSION = Map.ofEntries(
            Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"), Map.entry("bmp", "image/bmp"), Map.entry("webp", "image/webp"),
            Map.entry("svg", "image/svg+xml"), Map.entry("ico", "image/x-icon"), Map.entry("pdf", "application/pdf"),
            Map.entry("zip", "application/zip"), Map.entry("gz", "application/gzip"),
            Map.entry("tar", "application/x-tar"), Map.entry("jar", "application/java-archive"),
            Map.entry("class", "application/java-vm"), Map.entry("wasm", "application/wasm"),
            Map.entry("mp3", "audio/mpeg"), Map.entry("wav", "audio/wav"), Map.entry("mp4", "video/mp4"),
            Map.entry("json", "application/json"), Map.entry("sqlite", "application/vnd.sqlite3"),
            Map.entry("db", "application/vnd.sqlite3"));

    /** A MIME type from the content's magic bytes, else the extension, else {@code application/octet-stream}. */
    static String mimeType(String path, byte[] b) {
        if (starts(b, 0x89, 'P', 'N', 'G')) {
            return "image/png";
        }
        if (starts(b, 0xFF, 0xD8, 0xFF)) {
            return "image/jpeg";
        }
        if (starts(b, 'G', 'I', 'F', '8')) {
            return "image/gif";
        }
        if (starts(b, 'B', 'M') && b.length > 14) {
            return "image/bmp";
        }
        if (starts(b, '%', 'P', 'D', 'F')) {
            return "application/pdf";
        }
        if (starts(b, 'P', 'K', 3, 4)) {
            String ext = extension(path);
            return ext.equals("jar") ? "application/java-archive" : "application/zip";
        }
        if (starts(b, 0x1F, 0x8B)) {
            return "application/gzip";
        }
        if (starts(b, 0x7F, 'E', 'L', 'F')) {
            return "application/x-elf";
        }
        if (starts(b, 0xCA, 0xFE, 0xBA, 0xBE)) {
            return "application/java-vm";
        }
        if (b.length > 12 && starts(b, 'R', 'I', 'F', 'F') && b[8] == 'W' && b[9] == 'E' && b[10] == 'B') {
            return "image/webp";
        }
        return BY_EXTENSION.getOrDefault(extension(path), "application/octet-stream");
    }

    private static String extension(String path) {
        int slash = path.lastIndexOf('/');
        String name = path.substring(slash + 1);
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    }

    private static boolean starts(byte[] b, int... prefix) {
        if (b.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if ((b[i] & 0xFF) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** A PNG thumbnail (longest side at most 256 px) with the original size, or null if ImageIO cannot read it. */
    static Thumbnail thumbnail(byte[] bytes) {
        try {
            BufferedImage src = ImageIO.read(new ByteArrayInputStream(bytes));
            if (src == null) {
                return null;
            }
            int w = src.getWidth();
            int h = src.getHeight();
            double scale = Math.min(1.0, (double) THUMBNAIL_SIDE / Math.max(w, h));
            int tw = Math.max(1, (int) Math.round(w * scale));
            int th = Math.max(1, (int) Math.round(h * scale));
            BufferedImage dst = new BufferedImage(tw, th, BufferedImage.TYPE_INT_ARGB);
            Graphics2D g = dst.createGraphics();
            try {
                g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
                g.drawImage(src, 0, 0, tw, th, null);
            } finally {
                g.dispose();
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ImageIO.write(dst, "png", out);
            return new Thumbnail(Base64.getEncoder().encodeToString(out.toByteArray()), w, h, tw, th);
        } catch (IOException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    record Thumbnail(String base64, int width, int height, int thumbWidth, int thumbHeight) {
    }

    /** A two-level listing: one entry per line, directories with a trailing slash, indented by depth. */
    static String tree(String root, List<FileInfo> entries) {
        StringBuilder sb = new StringBuilder();
        String prefix = root.isEmpty() ? "" : root + "/";
        for (FileInfo e : entries) {
            String rel = e.path().startsWith(prefix) ? e.path().substring(prefix.length()) : e.path();
            int depth = rel.isEmpty() ? 0 : rel.split("/").length - 1;
            sb.append("  ".repeat(depth)).append(e.name());
            if (e.isDirectory()) {
                sb.append('/');
            } else if (e.linkTarget() != null) {
                sb.append(" -> ").append(e.linkTarget());
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** Lines {@code from..to} (1-based, inclusive), numbered like {@code cat -n}, within a character budget. */
    static Numbered number(String text, int from, int to, int budget) {
        String[] lines = text.split("\n", -1);
        int total = text.isEmpty() ? 0 : lines.length;
        if (text.endsWith("\n")) {
            total--; // the empty string after the final newline is not a line
        }
        int end = to < 0 ? total : Math.min(to, total);
        StringBuilder sb = new StringBuilder();
        int last = from - 1;
        for (int i = from; i <= end; i++) {
            String line = String.format("%6d\t", i) + lines[i - 1] + "\n";
            if (sb.length() + line.length() > budget && sb.length() > 0) {
                break;
            }
            sb.append(line);
            last = i;
        }
        return new Numbered(sb.toString(), total, last);
    }

    record Numbered(String content, int totalLines, int lastShown) {
    }
}

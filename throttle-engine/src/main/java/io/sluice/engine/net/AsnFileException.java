package io.sluice.engine.net;

/**
 * An IP-to-ASN file that cannot be used, and why: the file (or source) and the line are named, so an operator can
 * open it there. Whoever was loading it keeps the table it had ({@link AsnTable}).
 */
public final class AsnFileException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String source;
    private final long line;

    /**
     * @param source the file's name, as the operator gave it
     * @param line   the line the problem is on (1 for the first), or 0 when it is the file as a whole
     * @param reason what is wrong there
     */
    public AsnFileException(String source, long line, String reason) {
        super(source + (line > 0 ? " line " + line : "") + ": " + reason);
        this.source = source;
        this.line = line;
    }

    public String source() {
        return source;
    }

    /** The line the problem is on (1 for the first), or 0 when it is the file as a whole. */
    public long line() {
        return line;
    }
}

package dev.sandbox4j.core.egress;



/** A refusal before any name was looked at: a malformed or oversized head. */
final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;
    final String statusText;

    BadRequest(int status, String statusText, String message) {
        super(message, null, false, false);
        this.status = status;
        this.statusText = statusText;
    }

    BadRequest(String message) {
        this(400, "Bad Request", message);
    }

    /** At most 200 characters of {@code s}, with anything but printable ASCII as {@code ?}, for a message. */
    static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && i < 200; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return s.length() > 200 ? sb + "..." : sb.toString();
    }
}

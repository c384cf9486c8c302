package dev.relink;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks an answer's text before {@code org.json} parses it: org.json recurses once per bracket, so a few thousand
 * of them overflow the stack, and it keeps the last of two equal keys where other parsers keep the first. A number
 * past a double's range ({@code 1e999999}) it refuses wherever it stands, where the other parsers read it as infinity
 * or skip it: named here so the message says why. A comma with no value on one side ({@code [1,]}, {@code [1,,2]})
 * it reads as a null where the other parsers skip it or refuse the text. The Swift and JavaScript clients make the
 * same checks (clients/conformance/README.md).
 */
final class JsonShape {
    /** Deeper than this is not a Relink answer (its answers nest two levels). */
    static final int MAX_DEPTH = 64;

    private JsonShape() {}

    /**
     * Why the text is not an answer to parse, or null: nesting deeper than {@link #MAX_DEPTH}, an object with one
     * key twice, a number past a double's range, or a comma with no value on one side. Text that is not JSON at all passes; the parser refuses it.
     *
     * @param text the answer's body.
     * @return the problem in words, or null.
     */
    static String problem(String text) {
        // One entry per open bracket: the keys of an object, null for an array.
        List<Set<String>> open = new ArrayList<Set<String>>();
        int length = text.length();
        // The last character outside a string that is not white space (a string counts as its quote, a number as 0).
        char previous = 0;
        int i = 0;
        while (i < length) {
            char c = text.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                i++;
                continue;
            }
            if (c == '"') {
                int end = stringEnd(text, i);
                Set<String> keys = open.isEmpty() ? null : open.get(open.size() - 1);
                if (keys != null && nextNonSpace(text, end) == ':') {
                    String key = decode(text, i + 1, end - 1);
                    if (!keys.add(key)) return "The answer has the key \"" + printable(key) + "\" twice in one object.";
                }
                previous = '"';
                i = end;
                continue;
            }
            if (c == '-' || (c >= '0' && c <= '9')) {
                int end = i;
                while (end < length && isNumberChar(text.charAt(end))) end++;
                String number = text.substring(i, end);
                if (isPastDouble(number)) {
                    return "The answer holds the number " + (number.length() > 32 ? number.substring(0, 32) + "…" : number)
                            + ", past a double's range.";
                }
                previous = '0';
                i = end;
                continue;
            }
            if (c == '{' || c == '[') {
                if (open.size() >= MAX_DEPTH) return "The answer nests deeper than " + MAX_DEPTH + " levels.";
                open.add(c == '{' ? new HashSet<String>() : null);
            } else if (c == '}' || c == ']') {
                if (previous == ',') return "The answer has a comma before a closing bracket.";
                if (!open.isEmpty()) open.remove(open.size() - 1);
            } else if (c == ',' && (previous == 0 || previous == ',' || previous == '[' || previous == '{')) {
                return "The answer has a comma with no value before it.";
            }
            previous = c;
            i++;
        }
        return null;
    }

    private static boolean isNumberChar(char c) {
        return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    }

    /** Whether {@code number} reads as an infinite double; text that is no number is the parser's to refuse. */
    private static boolean isPastDouble(String number) {
        try {
            return Double.isInfinite(Double.parseDouble(number));
        } catch (NumberFormatException notANumber) {
            return false;
        }
    }

    /** The index just past the string that opens at {@code start}, or the text's length when it never closes. */
    private static int stringEnd(String text, int start) {
        int i = start + 1;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\') {
                i += 2;
            } else if (c == '"') {
                return i + 1;
            } else {
                i++;
            }
        }
        return text.length();
    }

    private static char nextNonSpace(String text, int from) {
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
        }
        return 0;
    }

    /** A key's text with its escapes read, so {@code "a"} and {@code "\u0061"} are the same key, as to a parser. */
    private static String decode(String text, int from, int to) {
        StringBuilder key = new StringBuilder(Math.max(0, to - from));
        int i = from;
        while (i < to) {
            char c = text.charAt(i);
            if (c != '\\' || i + 1 >= to) {
                key.append(c);
                i++;
                continue;
            }
            char escape = text.charAt(i + 1);
            i += 2;
            switch (escape) {
                case 'b': key.append('\b'); break;
                case 'f': key.append('\f'); break;
                case 'n': key.append('\n'); break;
                case 'r': key.append('\r'); break;
                case 't': key.append('\t'); break;
                case 'u':
                    if (i + 4 <= to && isHex(text, i, i + 4)) {
                        key.append((char) Integer.parseInt(text.substring(i, i + 4), 16));
                        i += 4;
                    } else {
                        key.append("\\u"); // not JSON: the parser refuses it
                    }
                    break;
                default: key.append(escape);
            }
        }
        return key.toString();
    }

    private static boolean isHex(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (Character.digit(text.charAt(i), 16) < 0 || text.charAt(i) > 'f') return false;
        }
        return true;
    }

    /** The key for a message: at most 64 characters, control characters as '?'. */
    private static String printable(String key) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < key.length() && i < 64; i++) {
            char c = key.charAt(i);
            text.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return text.toString();
    }
}

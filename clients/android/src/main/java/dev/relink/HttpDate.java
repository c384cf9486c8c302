package dev.relink;

/**
 * RFC 9110's IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}), read by hand as the Swift and JavaScript clients
 * read it: {@code SimpleDateFormat} depends on the device's locale data and is lenient about what it takes.
 */
final class HttpDate {
    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    private HttpDate() {}

    /**
     * @param text a header's value, trimmed.
     * @return the date in seconds since 1970, or null when the text is not an IMF-fixdate of a real day.
     */
    static Long epochSeconds(String text) {
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 characters, every one in its place.
        if (text.length() != 29 || text.charAt(3) != ',' || text.charAt(4) != ' ' || text.charAt(7) != ' ' || text.charAt(11) != ' '
                || text.charAt(16) != ' ' || text.charAt(19) != ':' || text.charAt(22) != ':' || text.charAt(25) != ' '
                || !text.endsWith("GMT")) {
            return null;
        }
        if (indexOf(DAYS, text.substring(0, 3)) < 0) return null;
        int month = indexOf(MONTHS, text.substring(8, 11)) + 1;
        int day = number(text, 5, 7);
        int year = number(text, 12, 16);
        int hour = number(text, 17, 19);
        int minute = number(text, 20, 22);
        int second = number(text, 23, 25);
        if (month == 0 || day < 1 || year < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
            return null;
        }
        if (day > daysIn(month, year)) return null;
        return daysSince1970(year, month, day) * 86400L + hour * 3600L + minute * 60L + second;
    }

    private static int indexOf(String[] names, String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) return i;
        }
        return -1;
    }

    /** The ASCII digits from {@code from} to {@code to} as a number, or -1. */
    private static int number(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') return -1;
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static int daysIn(int month, int year) {
        if (month == 2) return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
        return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
    }

    /** Days from 1970-01-01 to the date in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil). */
    static long daysSince1970(int year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = (y >= 0 ? y : y - 399) / 400;
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146097 + dayOfEra - 719468;
    }
}

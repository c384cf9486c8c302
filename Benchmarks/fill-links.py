#!/usr/bin/env python3
"""Fills a Relink SQLite database with COUNT short links in bulk (not through the API), as a big import would leave
it: codes of 7 mixed-case characters, each link with its own deep link, the project's apps and utm parameters.
Writes the codes, one a line, to CODES_FILE (for the wrk script). The database must exist (any `relink` command that
opens it creates the schema).

Usage: fill-links.py DATABASE COUNT CODES_FILE
       fill-links.py ROWS.csv COUNT CODES_FILE    # for PostgreSQL: the rows as CSV, to load with COPY
"""
import json
import random
import sqlite3
import string
import sys
import time

database, count, codes_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
random.seed(7)
alphabet = string.ascii_letters + string.digits
domain = "https://go.pictlink.com"
seen = set()
now = time.time()


ORDER = ["link", "apn", "afl", "amv", "al", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl", "st", "sd",
         "si", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "at", "ct", "mt", "pt", "d"]


def canonical(value):
    return "".join(chr(b) if chr(b).isascii() and chr(b).isalnum() else f"%{b:02X}" for b in value.encode())


def rows():
    with open(codes_file, "w") as codes:
        made = 0
        while made < count:
            code = "".join(random.choice(alphabet) for _ in range(7))
            if code in seen:
                continue
            seen.add(code)
            made += 1
            codes.write(code + "\n")
            parameters = {
                "link": f"https://pictlink.com/photos/{made}",
                "apn": "jp.furyu.pictlink.android",
                "ibi": "jp.furyu.pictlink.ios",
                "isi": "000000001",
                "utm_campaign": "spring",
                "utm_source": "mail",
            }
            # The long link as Relink stores it (canonical): parameters in LinkParameter's order, every byte but
            # ASCII letters and digits percent-encoded.
            query = "&".join(f"{k}={canonical(parameters[k])}" for k in ORDER if k in parameters)
            yield ("pictlink", domain, code, f"{domain}/?{query}", json.dumps(parameters, sort_keys=True, separators=(",", ":")),
                   "SHORT", now, now)


if database.endswith(".csv"):
    # For PostgreSQL: rows to load with COPY (the columns below, in order).
    import csv
    with open(database, "w", newline="") as out:
        csv.writer(out).writerows(rows())
    print(f"wrote {count} links to {database}", file=sys.stderr)
    sys.exit(0)

connection = sqlite3.connect(database)
connection.execute("PRAGMA journal_mode=WAL")
connection.execute("PRAGMA synchronous=OFF")
connection.executemany(
    "INSERT INTO links (project_id, domain, code, long_link, parameters, suffix_option, created_at, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows())
connection.commit()
print(f"filled {count} links into {database}", file=sys.stderr)

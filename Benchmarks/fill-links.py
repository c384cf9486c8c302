#!/usr/bin/env python3
"""Fills a Relink SQLite database with COUNT short links in bulk (not through the API), as a big import would leave
it: codes of 7 mixed-case characters, each link with its own deep link, the project's apps and utm parameters.
Writes the codes, one a line, to CODES_FILE (for the wrk script). The database must exist (any `relink` command that
opens it creates the schema).

Usage: fill-links.py DATABASE COUNT CODES_FILE
"""
import json
import random
import sqlite3
import string
import sys
import time
import urllib.parse

database, count, codes_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
random.seed(7)
alphabet = string.ascii_letters + string.digits
domain = "https://go.pictlink.com"
connection = sqlite3.connect(database)
connection.execute("PRAGMA journal_mode=WAL")
connection.execute("PRAGMA synchronous=OFF")
seen = set()
now = time.time()


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
            query = "&".join(f"{k}={urllib.parse.quote(v, safe='')}" for k, v in parameters.items())
            yield ("pictlink", domain, code, f"{domain}/?{query}", json.dumps(parameters, sort_keys=True, separators=(",", ":")),
                   "SHORT", now, now)


connection.executemany(
    "INSERT INTO links (project_id, domain, code, long_link, parameters, suffix_option, created_at, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows())
connection.commit()
print(f"filled {count} links into {database}", file=sys.stderr)

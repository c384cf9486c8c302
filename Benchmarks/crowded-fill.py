#!/usr/bin/env python3
"""Fills a Relink SQLite database with pending Android clicks for Benchmarks/crowded-claims.sh: CROWDED clicks from
one address (11.200.0.1) and SPREAD clicks from others (four to an address, 11.x.y.z), all in the last two hours
(the fingerprint window), hashed as the server hashes addresses (HMAC-SHA256 under the secret, see AddressHasher),
and written in the order of their times, as a server writes them.

    crowded-fill.py DATABASE SECRET CROWDED SPREAD
"""
import hashlib
import hmac
import random
import secrets
import sqlite3
import sys
import time

database, secret, crowded, spread = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3]), int(sys.argv[4])
CROWDED_ADDRESS = (11, 200, 0, 1)


def hashes(address):
    def mac(label, data):
        return hmac.new(secret, bytes([ord(label), 4]) + bytes(data), hashlib.sha256).hexdigest()[:32]

    return mac("a", address), mac("n", address[:3])


def spread_address(n):
    return (11 + n // 262144, (n // 1024) % 256, (n // 4) % 256, n % 4 + 1)


random.seed(20261127)
now = time.time()
connection = sqlite3.connect(database)
alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def rows():
    crowd = hashes(CROWDED_ADDRESS)
    for index in range(crowded + spread):
        address, network = crowd if index < crowded else hashes(spread_address((index - crowded) // 4))
        click_id = "".join(secrets.choice(alphabet) for _ in range(22))
        yield (click_id, "pictlink", "ANDROID", None, "jp.furyu.pictlink.android", f"https://go.pictlink.com/p/{index % 1000}",
               now - random.uniform(1, 7000), address, network, 4, "14", "pixel 7", "en")


connection.executemany(
    """INSERT INTO pending_clicks (id, project_id, platform, link_id, app_id, requested_link, created_at, address_hash,
           network_hash, ip_version, os_version, device, languages) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
    sorted(rows(), key=lambda row: row[6]))
connection.commit()
print(connection.execute("SELECT COUNT(*) FROM pending_clicks").fetchone()[0])

#!/usr/bin/env python3
"""Writes countries.mmdb, the small MaxMind-format country database the link-rule tests read.

    pip install mmdb-writer==0.2.7 && python3 make-test-db.py

Documentation networks only (RFC 5737, RFC 3849), in the GeoIP2-Country layout (country.iso_code), so the file says
nothing about real addresses.
"""
from pathlib import Path

from mmdb_writer import MMDBWriter
from netaddr import IPSet

writer = MMDBWriter(ip_version=6, ipv4_compatible=True, database_type="GeoIP2-Country", languages=["en"], description="Relink test countries")
writer.insert_network(IPSet(["203.0.113.0/24"]), {"country": {"iso_code": "ES", "names": {"en": "Spain"}}})
writer.insert_network(IPSet(["198.51.100.0/24"]), {"country": {"iso_code": "JP", "names": {"en": "Japan"}}})
# Only a registered country: an address of an anycast or satellite network, say.
writer.insert_network(IPSet(["192.0.2.0/25"]), {"registered_country": {"iso_code": "MX"}})
writer.insert_network(IPSet(["2001:db8::/32"]), {"country": {"iso_code": "BR", "names": {"en": "Brazil"}}})
writer.to_db_file(str(Path(__file__).with_name("countries.mmdb")))

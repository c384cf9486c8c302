"""Loaded by Scripts/check-contract.sh (SCHEMATHESIS_HOOKS). Two things schemathesis would otherwise test that are not
the API's contract:

- Header values HTTP forbids (RFC 9110 section 5.5: controls other than tab, and DEL). schemathesis sends them when a
  header parameter's schema is negated; the server's HTTP parser refuses such a message with a bare 400 before any
  route, or the API's JSON errors, can see it. The generated cases with them are dropped.
- One client address for the whole run. The ignored_auth check follows every successful authenticated request with
  a wrong key and expects 401; Relink answers 429 to an address past 20 failed keys (docs/api.md, held to it by the
  Swift tests), which from one address would soon be the server working as documented. So each connection comes from
  a loopback address of its own (127.0.0.2, 127.0.0.3, ...: all of 127.0.0.0/8 reaches a server on 127.0.0.1).
"""

import itertools

import schemathesis
import urllib3.connection

_FORBIDDEN_IN_HEADER_VALUES = frozenset(chr(code) for code in [*range(0x20), 0x7F] if code != 0x09)


@schemathesis.hook
def filter_headers(context, headers):
    # Negated cases come wrapped, with what was negated beside the value.
    headers = getattr(headers, "value", headers)
    return not isinstance(headers, dict) or not any(
        isinstance(value, str) and not _FORBIDDEN_IN_HEADER_VALUES.isdisjoint(value) for value in headers.values()
    )


_hosts = itertools.count(2)
_connect = urllib3.connection.HTTPConnection.__init__


def _from_own_loopback_address(self, *args, **kwargs):
    number = next(_hosts) % (1 << 24)
    kwargs["source_address"] = (f"127.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255 or 1}", 0)
    _connect(self, *args, **kwargs)


urllib3.connection.HTTPConnection.__init__ = _from_own_loopback_address

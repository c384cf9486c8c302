"""Loaded by Scripts/check-contract.sh (SCHEMATHESIS_HOOKS). Two things schemathesis would otherwise test that are not
the API's contract, and one false failure:

- Header values HTTP forbids (RFC 9110 section 5.5: controls other than tab, and DEL). schemathesis sends them when a
  header parameter's schema is negated; the server's HTTP parser refuses such a message with a bare 400 before any
  route, or the API's JSON errors, can see it. The generated cases with them are dropped.
- One client address for the whole run. The ignored_auth check follows every successful authenticated request with
  a wrong key and expects 401; Relink answers 429 to an address past 20 failed keys (docs/api.md, held to it by the
  Swift tests), which from one address would soon be the server working as documented. So each connection comes from
  a loopback address of its own (127.0.0.2, 127.0.0.3, ...: all of 127.0.0.0/8 reaches a server on 127.0.0.1).

And one check is widened as schemathesis widened it after 4.3.18. ensure_resource_availability reports a 404 for a
resource a POST just made unless a successful DELETE of it is in the same scenario's tree. But the stateful phase
also lists the webhooks and deletes the first one listed, which can be one another branch has just made; that
branch's own DELETE then rightly gets 404 (1 failure in 905 scenarios, once in several runs). Here a successful
DELETE of the same resource anywhere in the run counts, as in later releases. Those releases are not used: with this
script's deterministic generation, 4.32.5's stateful phase ran 19 scenarios where 4.3.18 runs 130 to 900.
"""

import itertools

import schemathesis
import schemathesis.specs.openapi.checks as openapi_checks
import urllib3.connection
from schemathesis.checks import CHECKS
from schemathesis.openapi.checks import EnsureResourceAvailability

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


_ensure_resource_availability = CHECKS.get_one("ensure_resource_availability")


def _deleted_in_run(ctx, case):
    recorder = ctx._recorder
    if recorder is None:
        return False
    resource = openapi_checks.ResourcePath(case.path, case.path_parameters or {})
    for node in list(recorder.cases.values()):
        other = node.value
        if other.id == case.id or other.operation.method.upper() != "DELETE":
            continue
        response = recorder.find_response(case_id=other.id)
        if (
            response is not None
            and 200 <= response.status_code < 300
            and openapi_checks._is_prefix_operation(
                openapi_checks.ResourcePath(other.path, other.path_parameters or {}), resource
            )
        ):
            return True
    return False


def ensure_resource_availability(ctx, response, case):
    try:
        return _ensure_resource_availability(ctx, response, case)
    except EnsureResourceAvailability:
        if _deleted_in_run(ctx, case):
            return None
        raise


CHECKS.register(ensure_resource_availability)

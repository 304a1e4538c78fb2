"""What a mined parameter becomes as a column: its kind, its range and how seeded rows fill it.

The kind is read from the parameter's declared type and enum first and from its name second
(``email``, ``due_date``, ``price``, ``city``). It is a heuristic over the names real servers use;
where a domain pack declares a field of the same name on an entity of the same name, the pack's
declaration wins (see ``packs.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from agentworld.servers.words import words

__all__ = ["Column", "column_for", "TRANSPORT", "PAGING", "QUERY", "SORT", "SINCE", "UNTIL",
           "PERSON_NOUNS", "is_ref_name", "ref_noun", "is_option", "is_credential",
           "evident_type"]

# Parameters that shape a listing instead of naming a column.
PAGING = {"limit": "limit", "max_results": "limit", "page_size": "limit", "per_page": "limit",
          "max_records": "limit", "top": "limit", "count": "limit", "size": "limit",
          "max_items": "limit", "maxresults": "limit", "pagesize": "limit", "n": "limit",
          "offset": "offset", "skip": "offset", "start": "offset", "page": "page",
          "page_number": "page", "cursor": "cursor", "page_token": "cursor",
          "next_token": "cursor", "starting_after": "cursor", "ending_before": "cursor",
          "before_id": "cursor", "after_id": "cursor", "next_cursor": "cursor",
          "next_page_token": "cursor", "continuation_token": "cursor",
          "pagination_token": "cursor"}
QUERY = frozenset({"query", "q", "search", "keyword", "keywords", "term", "search_term",
                   "search_query", "text", "filter", "name_contains", "contains",
                   "search_string", "search_text", "query_string", "search_terms",
                   "searchterm", "searchquery", "query_text"})
SORT = frozenset({"sort", "sort_by", "order_by", "orderby", "sortby", "order", "sort_order",
                  "direction", "sort_direction"})
SINCE = frozenset({"since", "after", "from_date", "start_date", "date_from", "created_after",
                   "updated_since", "start_time", "from", "min_date", "time_min", "timemin",
                   "min_time", "from_time", "start_after", "updated_after", "modified_since",
                   "modified_after", "created_since"})
UNTIL = frozenset({"until", "before", "to_date", "end_date", "date_to", "created_before",
                   "end_time", "to", "max_date", "time_max", "timemax", "max_time", "to_time",
                   "end_before", "updated_before", "modified_before", "created_until"})
# Parameters about the call itself (authentication, output shape, debugging), not the records:
# accepted and left out of the entity model.
TRANSPORT = frozenset({"session_id", "sessionid", "auth_token", "access_token", "api_key",
                       "apikey", "token", "api_token", "bearer_token", "password", "secret",
                       "client_id", "client_secret", "kwargs", "args", "verbosity", "verbose",
                       "debug", "format", "output_format", "response_format", "fields",
                       "timeout", "base_url", "url_base", "host", "port", "dry_run",
                       "raw", "pretty", "locale", "lang", "language_code", "time_zone",
                       "timezone", "context", "ctx", "config", "profile", "region_name",
                       "endpoint", "server", "server_url", "instance", "instance_url",
                       "user_google_email", "confirm", "force"})
# Switches that shape one call (what to return, whether to overwrite, how to run), not a record:
# accepted and left out of the entity model, like TRANSPORT.
_OPTION_NAMES = frozenset("operation action mode overwrite recursive wait refresh apply save backup "
                          "compact detailed detail full paginate permanent reply_all as_json "
                          "summary_only use_cache force_refresh fetch_all notify "
                          "send_notification send_notifications cascade preview silent quiet "
                          "validate validate_only async".split())
_OPTION_PREFIXES = ("include_", "with_", "show_", "exclude_", "drop_", "skip_", "return_",
                    "expand_", "ignore_", "preserve_", "strip_", "fetch_", "convert_", "as_",
                    "force_", "use_", "auto_")
# Names that say a parameter is one plain value even where the package declares a class the
# static reader cannot resolve (``limit: PositiveInt``, ``title: Title``): read as that value.
_EVIDENT_STRING = frozenset("name title subject body content text message description note notes "
                            "comment summary query status state region path kind email "
                            "label slug".split())
_EVIDENT_NUMBER = frozenset("latitude longitude lat lng lon".split())
# Nouns that name a person's role; a ``<role>_id`` refers to the environment's people.
PERSON_NOUNS = frozenset("user member assignee owner author reporter creator requester approver "
                         "reviewer customer contact employee person agent manager recipient "
                         "sender participant attendee staff driver patient doctor student "
                         "teacher client seller buyer host guest follower admin operator".split())

_DATE = re.compile(r"(^|_)(date|day|deadline|due|birthday|dob)($|_)|_on$")
_DATETIME = re.compile(r"(_at|_time|timestamp|datetime)$")
_MONEY = re.compile(r"(price|amount|cost|total|budget|salary|fee|balance|revenue|payment|"
                    r"rate|value|spend|income|expense)")


_TTLS = (1, 60, 300, 600, 1800, 3600, 86400)


@dataclass(frozen=True)
class Column:
    """One column of a mined entity's table."""

    name: str
    kind: str          # text, key, name, email, url, phone, int, float, bool, date, datetime,
                       # enum, ref, json, city, country, currency, company
    json_type: str = "string"          # the declared JSON type of the parameters it serves
    values: tuple[str, ...] = ()       # enum
    ref: str = ""                      # ref: the entity referred to
    minimum: float | None = None
    maximum: float | None = None
    unique: bool = False
    vocab: tuple[str, ...] = ()        # text: phrases to draw from (a domain pack's)


def is_ref_name(name: str) -> bool:
    """``project_id``, ``projectId``, ``owner_uid``: a parameter that refers to another row."""
    if name.lower() in PAGING:             # before_id, after_id: a position in a listing
        return False
    parts = words(name)
    if parts and parts[0] in ("external", "remote", "foreign", "vendor", "upstream"):
        return False                       # an id in another system, kept as text
    return len(parts) >= 2 and parts[-1] in ("id", "uid", "ids", "key", "gid")


def is_option(name: str) -> bool:
    """A parameter about the call itself: transport, output shape or a one-call switch."""
    lowered = name.lower()
    return lowered in TRANSPORT or lowered in _OPTION_NAMES or is_credential(name) or \
        lowered.startswith(_OPTION_PREFIXES)


_CREDENTIALS = frozenset("session_id sessionid auth_token access_token api_key apikey token "
                         "api_token bearer_token password secret client_secret idempotency_key "
                         "nonce otp captcha".split())


def is_credential(name: str) -> bool:
    """A secret or a one-call proof (``api_key``, ``confirmation_token``, ``idempotency_key``): the
    server takes it, a person asking for the work would never state it. ``page_token`` and
    ``next_token`` are paging, not credentials."""
    lowered = name.lower()
    return lowered in _CREDENTIALS or lowered.endswith("_token") and lowered not in PAGING


def evident_type(name: str, declared: str) -> str:
    """The declared type, or for an unresolved ``object`` the plain type the name makes evident
    (``*_id`` and text names are strings, paging sizes integers, coordinates numbers)."""
    if declared != "object":
        return declared
    lowered = name.lower()
    if lowered in PAGING and PAGING[lowered] in ("limit", "offset", "page"):
        return "integer"
    if lowered in _EVIDENT_NUMBER:
        return "number"
    if lowered in _EVIDENT_STRING or lowered in PAGING or lowered == "id" or (
            is_ref_name(name) and not lowered.endswith("ids")):
        return "string"
    return declared


def ref_noun(name: str) -> str:
    return "_".join(words(name)[:-1][-2:])


def _number_range(name: str, integer: bool) -> tuple[float, float]:
    parts = set(words(name))
    if parts & {"priority", "severity", "level"}:
        return (1, 5)
    if parts & {"rating", "stars", "score"}:
        return (1, 5) if parts & {"rating", "stars"} else (0, 100)
    if parts & {"year"}:
        return (2015, 2026)
    if parts & {"percent", "percentage", "progress", "probability"}:
        return (0, 100)
    if parts & {"quantity", "qty", "capacity", "seats", "stock", "units"}:
        return (1, 250)
    if parts & {"bpm", "tempo"}:
        return (60, 180)
    if parts & {"numerator", "denominator"}:
        return (2, 8)
    if parts & {"index", "position", "order", "rank"}:
        return (0, 39) if integer else (0, 100)
    if parts & {"minutes", "duration"}:
        return (15, 240)
    if parts & {"hours"}:
        return (1, 40)
    if parts & {"days"}:
        return (1, 90)
    if parts & {"age"}:
        return (18, 90)
    if parts & {"latitude", "lat"}:
        return (-60, 70)
    if parts & {"longitude", "lng", "lon"}:
        return (-170, 170)
    # Money in minor units (Google's ``amount_micros``, Stripe's ``amount_cents``): the same
    # 5.00-5,000.00, scaled, so a price is not a fraction of a cent.
    if parts & {"micros"}:
        return (5_000_000, 5_000_000_000)
    if parts & {"cents"}:
        return (500, 500_000)
    if _MONEY.search(name):
        return (5, 5000)
    return (1, 100) if integer else (0.5, 100)


def column_for(name: str, json_type: str, enum: list[Any] | None, items: str | None) -> Column:
    """The column a parameter describes (not for refs: the model makes those)."""
    lowered = name.lower()
    parts = words(name)
    if enum and all(isinstance(v, str) and v for v in enum) and len(set(enum)) == len(enum):
        return Column(name, "enum", json_type, tuple(enum))
    if enum and json_type in ("integer", "number") and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in enum):
        return Column(name, "int" if json_type == "integer" else "float", json_type,
                      values=tuple(enum), minimum=min(enum), maximum=max(enum))
    if json_type in ("array", "object"):
        return Column(name, "json", json_type)
    if json_type == "boolean":
        return Column(name, "bool", json_type)
    if json_type == "integer" and parts[-1:] == ["ttl"]:
        # seconds, as DNS and caches take them: 1 is Cloudflare's "automatic"
        return Column(name, "int", json_type, values=_TTLS, minimum=1, maximum=86400)
    if json_type in ("integer", "number"):
        low, high = _number_range(lowered, json_type == "integer")
        return Column(name, "int" if json_type == "integer" else "float", json_type, minimum=low,
                      maximum=high)
    last = parts[-1] if parts else lowered
    if "email" in parts or last == "mail":
        return Column(name, "email", json_type)
    if last in ("url", "link", "website", "homepage", "href", "uri"):
        return Column(name, "url", json_type)
    if last in ("phone", "mobile", "telephone"):
        return Column(name, "phone", json_type)
    if _DATETIME.search(lowered):
        return Column(name, "datetime", json_type)
    if _DATE.search(lowered):
        return Column(name, "date", json_type)
    if last in ("city", "town", "location"):
        # A location seeded as a phrase read "Finance location"; a city of the region reads
        # right for an event's, an office's or a job's.
        return Column(name, "city", json_type)
    if last == "country":
        return Column(name, "country", json_type)
    if last == "currency":
        return Column(name, "currency", json_type)
    if last in ("company", "organization", "organisation", "vendor", "supplier", "employer"):
        return Column(name, "company", json_type)
    if last in ("host", "hostname") or lowered in ("host_name", "jump_host"):
        return Column(name, "text", json_type)      # a machine's name, not an event's host
    if last in PERSON_NOUNS or last in ("username", "fullname") or lowered in (
            "full_name", "first_name", "last_name", "display_name", "assignee", "owner"):
        return Column(name, "name", json_type)
    return Column(name, "text", json_type)


def widen(a: Column, b: Column) -> Column:
    """One column seen in two tools: the more specific kind wins, enums are merged."""
    if a.kind == "enum" and b.kind == "enum":
        return replace(a, values=tuple(dict.fromkeys(a.values + b.values)))
    if a.kind == "text" and b.kind != "text":
        return b
    return a

"""Tables and seeded rows for a mined entity model.

Values are drawn per column kind from one seeded RNG: people from the generated people pool,
cities, countries, currencies and companies from the real-data pools, labels and notes from a
domain pack's vocabulary where one matched (``packs.py``) and from a plain business vocabulary
otherwise. Every row of one entity that refers to people refers to different people in
different roles; timestamps are never after the environment's clock.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
import sqlite3
import zlib
from typing import Any

from agentworld.servers.envs._people import people
from agentworld.servers.words import words
from agentworld.servers.world.data import Region, pool
from agentworld.servers.world.entity_schema import EPOCH

from .columns import PERSON_NOUNS, Column
from .model import MinedEntity
from .ops import Table, q
from .text import SLUG_WORDS, SOFTWARE_NOUNS, THEMES, network_value, plain_text, shaped_label

__all__ = ["table_ddl", "seed_tables", "KEY_POOL_SIZE"]

KEY_POOL_SIZE = 40
_PEOPLE = 600
_ROLE_SLICES = 20
_QUALIFIERS = ("quarterly", "annual", "onboarding", "regional", "pilot", "customer", "internal",
               "partner", "spring", "migration", "compliance", "launch", "renewal", "support",
               "platform", "retail", "field", "finance", "product", "growth")
# Entities a company names: an ad account's or a vendor's row is "Siemens", not "Fjord retail
# account".
_NAMED_LIKE_COMPANIES = frozenset("account organization organisation org company vendor supplier "
                                  "tenant partner advertiser merchant brand business employer "
                                  "agency sponsor".split())
_NOTES = ("Follow up with the owner before Friday.", "Waiting on sign-off from finance.",
          "Moved up after the last review.", "Needs a second pair of eyes.",
          "Blocked on the vendor's reply.", "Agreed in the weekly sync.",
          "Priority raised by the account team.", "Low risk; can wait until next cycle.",
          "Scope trimmed to fit the deadline.", "Details confirmed on the call.")
_ROLE_SUFFIX = re.compile(r"_?(first_?name|last_?name|given_name|family_name|surname|full_?name|"
                          r"display_name|user_?name|login|handle|name|email|mail)$")
_LONG_TEXT = frozenset("description body content message text comment notes note summary "
                       "details reason bio about instructions feedback answer question "
                       "response".split())
_TICKER_SYLLABLES = ("AR", "BO", "CE", "DA", "EX", "FI", "GO", "HE", "IN", "JU", "KA", "LO",
                     "MI", "NO", "OR", "PA", "QU", "RI", "SO", "TE", "UL", "VI", "WA", "ZE")


# Records that stand for a person though their nouns are not roles (a lead's display name).
_PERSON_RECORDS = frozenset("lead candidate profile speaker artist player athlete subscriber "
                            "applicant volunteer traveler traveller passenger tenant physician "
                            "nurse instructor coach persona prospect donor worker".split())


def _names_a_person(e: MinedEntity) -> bool:
    return e.person or e.name.rsplit("_", 1)[-1] in PERSON_NOUNS | _PERSON_RECORDS


def _sql_type(col: Column) -> str:
    if col.kind in ("int", "bool"):
        return "INTEGER"
    if col.kind == "float":
        return "REAL"
    if col.kind in ("ref", "key") and col.json_type == "integer":
        return "INTEGER"
    return "TEXT"


def table_ddl(table: Table, tables: dict[str, Table]) -> str:
    e = table.entity
    columns = ["id INTEGER PRIMARY KEY" if e.integer_ids else "id TEXT PRIMARY KEY"]
    for name, col in e.columns.items():
        sql = f"{q(name)} {_sql_type(col)}"
        if col.unique:
            sql += " UNIQUE"
        if col.kind == "ref":
            sql += f" REFERENCES {tables[col.ref].name}(id)"
        elif col.kind == "enum":
            sql += f" CHECK ({q(name)} IS NULL OR {q(name)} IN (" + ", ".join(
                "'" + v.replace("'", "''") + "'" for v in col.values) + "))"
        elif col.kind == "bool":
            sql += f" CHECK ({q(name)} IS NULL OR {q(name)} IN (0, 1))"
        elif _sql_type(col) == "TEXT":
            sql += f" CHECK ({q(name)} IS NULL OR length({q(name)}) <= 20000)"
        columns.append(sql)
    if e.states:
        columns.append("status TEXT NOT NULL CHECK (status IN (" + ", ".join(
            "'" + v.replace("'", "''") + "'" for v in e.states) + "))")
    columns += ["created_at TEXT NOT NULL", "updated_at TEXT NOT NULL"]
    ddl = f"CREATE TABLE {table.name} (\n    " + ",\n    ".join(columns) + "\n);"
    indexes = [f"CREATE INDEX ix_{e.plural}_{i} ON {table.name}({q(n)});"
               for i, (n, c) in enumerate(e.columns.items()) if c.kind == "ref"]
    return "\n".join([ddl, *indexes])


class _Values:
    def __init__(self, region: Region, rng: random.Random, seed: int) -> None:
        self.region, self.rng = region, rng
        # Distinct names: two people with one name would read as one person in two roles.
        # A given name that is also a surname (Chen) would read as one person's two parts.
        drawn = people(_PEOPLE * 2, seed=seed, domain=region.email_domain)
        surnames = {p.surname for p in drawn}
        by_name = {p.name: p for p in drawn if p.given not in surnames}
        self.people = list(by_name.values())[:_PEOPLE]
        self.keys: dict[str, list[Any]] = {}
        self.key_names: set[str] = set()
        self.key_cols: list[Column] = []
        self.roles: dict[str, int] = {}
        self.issued: set[str] = set()      # key columns whose owning table is seeded
        self.software = False              # the environment keeps clusters, repositories...

    def person(self, column: str, i: int, entity: str = ""):
        """Each role (customer, assignee, author: a column's name without _name/_email) draws
        from its own slice of the people, so one person never holds two roles; a row's
        customer_name and customer_email are the same person. A bare ``name`` is the role of
        the entity itself (a guest's name, a mailbox owner's display name)."""
        role = _ROLE_SUFFIX.sub("", column.lower()) or entity
        slot = self.roles.setdefault(role, len(self.roles))
        size = len(self.people) // _ROLE_SLICES
        return self.people[(slot % _ROLE_SLICES) * size + i % size]

    def person_value(self, column: str, i: int, entity: str) -> str:
        """A name column's value: the whole name, or the part or login its name asks for."""
        person = self.person(column, i, entity)
        lowered = column.lower()
        if lowered.endswith(("first_name", "firstname", "given_name")):
            return person.given
        if lowered.endswith(("last_name", "lastname", "surname", "family_name")):
            return person.surname
        if lowered.endswith(("username", "login", "handle")) or lowered in ("user", "user_name"):
            return person.email.split("@")[0]
        return person.name

    def key_pool(self, col: Column) -> list[Any]:
        """Values shared by every entity keyed by the same parameter (get_price(symbol) and
        get_order_book(symbol) find the same symbols)."""
        owner = next((k for k in self.key_cols if k.name == col.name), col)
        if col.name not in self.keys:
            col = owner                    # the key column's type decides, not a namesake's
            rng = random.Random(col.name)
            if col.json_type == "integer" and set(col.name.lower().split("_")) & {
                    "index", "idx", "number", "no", "num", "position"}:
                start = 0 if "ind" in col.name.lower() else 1     # indexes count from 0
                values: list[Any] = list(range(start, start + KEY_POOL_SIZE))
            elif col.json_type == "integer":
                values = rng.sample(range(1000, 99999), KEY_POOL_SIZE)
            elif "symbol" in col.name.lower() or "ticker" in col.name.lower():
                values = sorted({rng.choice(_TICKER_SYLLABLES) + rng.choice(_TICKER_SYLLABLES)
                                 for _ in range(KEY_POOL_SIZE * 2)})[:KEY_POOL_SIZE]
            elif "mail" in col.name.lower():
                values = [p.email for p in self.people[:KEY_POOL_SIZE]]
            elif "user" in col.name.lower():
                values = [p.email.split("@")[0] for p in self.people[:KEY_POOL_SIZE]]
            else:
                values = _text_keys(col.name, rng)
            self.keys[col.name] = values
        return self.keys[col.name]

    def _same_type(self, col: Column) -> bool:
        """Whether a column can hold a shared key's values: an integer ``index`` column does
        not take a text key's (and a text one takes an integer key's only as text)."""
        owner = next((k for k in self.key_cols if k.name == col.name), col)
        return (owner.json_type == "integer") == (col.kind == "int") or col.kind == "text"

    def label(self, e: MinedEntity, col: Column, i: int) -> str:
        if col.vocab:
            base = col.vocab[i % len(col.vocab)]
            return base if i < len(col.vocab) else f"{base} ({THEMES[i // len(col.vocab) % 40]})"
        named = shaped_label(e.name, i, self.software)
        if named is not None:
            return named
        if e.name in _NAMED_LIKE_COMPANIES:
            return self.company(e.name, i)
        noun = e.name.replace("_", " ")
        return f"{THEMES[i % len(THEMES)]} {_QUALIFIERS[(i * 7) % len(_QUALIFIERS)]} {noun}"

    def company(self, entity: str, i: int) -> str:
        """Row ``i``'s company, distinct within the table, from a place in the listed
        companies that the entity's name fixes (an advertiser's and a vendor's differ)."""
        companies = pool("company", self.region.code)
        start = zlib.crc32(entity.encode()) % len(companies)
        stride = next(k for k in range(37, 10**6, 2) if math.gcd(k, len(companies)) == 1)
        name = companies[(start + i * stride) % len(companies)]
        return name if i < len(companies) else f"{name} ({i // len(companies) + 1})"

    def value(self, e: MinedEntity, col: Column, i: int, role: int, ids) -> Any:
        rng = self.rng
        kind = col.kind
        if kind == "ref":
            # The last fifth of each table is referred to by nothing, so some rows can go.
            pool_ = ids.get(col.ref) or [None]
            return rng.choice(pool_[: max(1, len(pool_) * 4 // 5)])
        if kind == "key":
            keys = self.key_pool(col)
            return keys[i % len(keys)]
        if col.name in self.key_names and kind in ("text", "int") and self._same_type(col):
            # list_orders(symbol) finds real symbols; an item's track_index names a real track.
            # Where a cycle seeded this table before the key's owner, the value is not set.
            return rng.choice(self.key_pool(col)) if col.name in self.issued else None
        if kind == "name":
            if col.name.lower() in ("display_name", "displayname") and not _names_a_person(e):
                return self.label(e, col, i)       # a property's display name is not a person
            return self.person_value(col.name, i, e.name)
        if kind == "email":
            return self.person(col.name, i, e.name).email
        if kind == "url":
            return f"https://{e.plural.replace('_', '-')}.example.com/{i + 1}"
        if kind == "phone":
            return f"+1 555 01{i % 100:02d}"
        if kind in ("int", "float") and col.values:
            return rng.choice(col.values)
        if kind == "int" and col.name.lower().endswith("micros"):
            return rng.randint(int(col.minimum or 0) // _CENT_IN_MICROS,
                               int(col.maximum or 100) // _CENT_IN_MICROS) * _CENT_IN_MICROS
        if kind == "int":
            return rng.randint(int(col.minimum or 0), int(col.maximum or 100))
        if kind == "float":
            return round(rng.uniform(col.minimum or 0.0, col.maximum or 100.0), 2)
        if kind == "bool":
            return int(rng.random() < 0.4)
        if kind == "date":
            return (EPOCH + dt.timedelta(days=rng.randint(-120, 60))).isoformat()
        if kind == "datetime":
            day = EPOCH - dt.timedelta(days=rng.randint(0, 120), minutes=rng.randint(0, 1439))
            return day.isoformat() + "T" + f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:00Z"
        if kind == "enum":
            return rng.choice(col.values)
        if kind == "json":
            return self.structured(e, col, i)
        if kind in ("city", "country", "currency", "company"):
            return rng.choice(pool(kind, self.region.code))
        if col.vocab:
            return rng.choice(col.vocab)
        network = network_value(col.name, e.name, i)
        if network is not None:                 # before prose: a DNS record's content
            return network
        if col.name.lower().split("_")[-1] in _LONG_TEXT:
            return rng.choice(_NOTES)
        # A second text column is its own value, never a copy of the row's name.
        return plain_text(col.name, e.name, i, rng)

    def structured(self, e: MinedEntity, col: Column, i: int) -> str:
        """An array or object column: lists of the things its name says (files, emails, links,
        tags); a key-value column carries the bookkeeping such maps hold in practice, and a
        settings- or payload-like one starts empty, as most records' do."""
        rng, lowered = self.rng, col.name.lower()
        noun = e.name.replace("_", "-")
        if col.json_type == "object":
            if any(w in lowered for w in ("metadata", "attribute", "propert", "custom", "label",
                                          "tag", "extra")):
                owner = self.person("owner", i)
                return json.dumps({"owner": owner.email, "team": _QUALIFIERS[i % 20]},
                                  sort_keys=True)
            return "{}"
        if "mail" in lowered or "recipient" in lowered:
            items = [p.email for p in self.people[:12]]
        elif "url" in lowered or "link" in lowered:
            items = [f"https://{e.plural.replace('_', '-')}.example.com/{k}" for k in range(9)]
        elif any(w in lowered for w in ("file", "attachment", "document", "path")):
            items = [f"{q}-{noun}.{ext}" for q, ext in zip(_QUALIFIERS, ("pdf", "csv", "docx",
                                                                        "png", "xlsx") * 4)]
        elif lowered.endswith(("ids", "_id")):
            return "[]"
        else:
            items = list(col.vocab or _QUALIFIERS)
        return json.dumps(sorted(rng.sample(items, rng.randint(1, 3))))


def _text_keys(column: str, rng: random.Random) -> list[str]:
    """KEY_POOL_SIZE distinct values for a text key, shaped by its name (versions look like
    versions) and distinct from every other key column's (a role's name is not a capability's)."""
    noun = "-".join(w for w in column.lower().split("_") if w not in (
        "name", "key", "slug", "id", "code", "handle", "or", "path", "file", "filename",
        "filepath")) or "item"
    values = list(dict.fromkeys(plain_text(column, noun, i, rng) for i in range(KEY_POOL_SIZE)))
    if len(values) == KEY_POOL_SIZE and not any(" " in v for v in values):
        return values
    return [f"{SLUG_WORDS[i % len(SLUG_WORDS)]}-{noun}" + (f"-{i // len(SLUG_WORDS) + 1}"
                                                           if i >= len(SLUG_WORDS) else "")
            for i in range(KEY_POOL_SIZE)]


_CLOCK = dt.datetime.combine(EPOCH, dt.time(9, 0))
_FORMAT = "%Y-%m-%dT%H:%M:00Z"          # how seeded times are written


def _timestamps(rng: random.Random, after: dt.datetime | None = None,
                keyed: bool = False) -> tuple[str, str]:
    """Created and updated times before the clock; a row is created after the rows it refers
    to (``after``), and rows named by a shared key (a symbol, a MAC address) are the oldest,
    since other rows name them too."""
    if after is None:
        days = rng.randint(300, 400) if keyed else rng.randint(30, 290)
        created = _CLOCK - dt.timedelta(days=days, minutes=rng.randint(0, 600))
    else:
        room = max(int((_CLOCK - after).total_seconds() // 60) - 120, 2)
        created = after + dt.timedelta(minutes=rng.randint(1, room))
    updated = created + dt.timedelta(minutes=rng.randint(0, 20 * 1440))
    updated = max(created, min(updated, _CLOCK - dt.timedelta(hours=1)))
    return created.strftime(_FORMAT), updated.strftime(_FORMAT)


def _seed_order(order: list[Table], key_names: set[str]) -> list[Table]:
    """The hard order (referred tables first), with tables that own a shared key moved before
    the tables that name it, where that makes no cycle."""
    owners = {n: t.entity.name for t in order for n, c in t.entity.columns.items()
              if c.kind == "key"}
    hard = {t.entity.name: {c.ref for c in t.entity.columns.values() if c.kind == "ref"}
            for t in order}
    deps = {t.entity.name: hard[t.entity.name]
            | {owners[n] for n, c in t.entity.columns.items() if c.kind in ("text", "int")
               and n in key_names and n != t.entity.label
               and owners.get(n) not in (None, t.entity.name)}
            for t in order}
    by_name = {t.entity.name: t for t in order}
    done: list[Table] = []
    while len(done) < len(order):
        names = {d.entity.name for d in done}
        ready = [t for t in order if t not in done and deps[t.entity.name] <= names | (
            set(deps[t.entity.name]) - set(by_name))]
        # Shared keys in a cycle: the first table whose foreign keys are met goes next, so
        # one cycle does not undo the order of every other table.
        ready = ready or [t for t in order if t not in done and hard[t.entity.name] <= names | (
            hard[t.entity.name] - set(by_name))] or [t for t in order if t not in done]
        done.append(ready[0])
    return done


_START = ("start", "begin", "from", "since", "check_in", "open", "min", "low", "lower")
_END = ("end", "finish", "to", "until", "check_out", "close", "due", "max", "high", "upper")


# How a row's state places its dates around the clock.
_PAST_STATES = frozenset("closed ended completed finished expired lapsed passed executed done "
                         "checked_out discharged returned resolved cancelled archived published "
                         "released sent paid shipped delivered merged deployed settled "
                         "fulfilled attended held printed posted".split())
_LIVE_STATES = frozenset("active open voting live running in_progress ongoing started enabled "
                         "current valid issued checked_in subscribed effective".split())
_FUTURE_STATES = frozenset("scheduled upcoming planned not_started announced tentative".split())
_END_WORDS = ("end", "until", "close", "expir", "due", "deadline", "finish", "to_")


def _mirror(value: str, future: bool) -> str:
    """The same distance from the clock, on the side the state needs."""
    day = dt.date.fromisoformat(value[:10])
    if (day > EPOCH) == future or day == EPOCH:
        return value
    return (EPOCH + (EPOCH - day)).isoformat() + value[10:]


def _place_dates(e: MinedEntity, row: dict[str, Any]) -> None:
    status = str(row.get("status") or "").lower().replace(" ", "_")
    if not status:
        return
    for name, col in e.columns.items():
        if col.kind not in ("date", "datetime") or not row.get(name):
            continue
        is_end = any(w in name.lower() for w in _END_WORDS)
        if status in _PAST_STATES:
            row[name] = _mirror(row[name], future=False)
        elif status in _FUTURE_STATES:
            row[name] = _mirror(row[name], future=True)
        elif status in _LIVE_STATES:
            row[name] = _mirror(row[name], future=is_end)


def _group_links(e: MinedEntity, entities) -> list[tuple[str, str, str, str]]:
    """(column a, a's group column, column b, b's group column) for every two references of a
    row whose targets both refer to one group table (a task's sprint and project, both of one
    workspace)."""
    refs = [(n, c) for n, c in e.columns.items() if c.kind == "ref"]
    links = []
    for i, (name_a, col_a) in enumerate(refs):
        groups_a = [(c.ref, n) for n, c in entities[col_a.ref].columns.items()
                    if c.kind == "ref" and c.ref != e.name]
        for name_b, col_b in refs[i + 1:]:
            if col_b.ref == col_a.ref:
                continue
            for group_col_b, c in entities[col_b.ref].columns.items():
                links += [(name_a, group_col_a, name_b, group_col_b)
                          for group, group_col_a in groups_a
                          if c.kind == "ref" and c.ref == group and group != e.name]
    return links


def _share_groups(e: MinedEntity, row: dict[str, Any], rows_of, entities, rng,
                  budget: int = 4000) -> None:
    """Choose a row's references so that they agree on their groups (an agent's location and
    person of one organisation, its queue and person at one location): a bounded backtracking
    search over the referred rows, the current choice first. Where none agrees, the row keeps
    its draw."""
    links = _group_links(e, entities)
    refs = {n: c.ref for n, c in e.columns.items() if c.kind == "ref"}
    names = [n for n in dict.fromkeys(x for link in links for x in (link[0], link[2]))
             if row.get(n) is not None and rows_of.get(refs[n])]
    if not names:
        return

    def agree(choice: dict[str, Any]) -> bool:
        for name_a, group_a, name_b, group_b in links:
            if name_a in choice and name_b in choice:
                want = rows_of[refs[name_a]][choice[name_a]].get(group_a)
                have = rows_of[refs[name_b]][choice[name_b]].get(group_b)
                if want is not None and have is not None and want != have:
                    return False
        return True

    if agree({n: row[n] for n in names}):
        return
    options = {}
    for n in names:
        others = [rid for rid in rows_of[refs[n]] if rid != row[n]]
        rng.shuffle(others)
        options[n] = [row[n], *others]
    steps = 0

    def search(k: int, choice: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal steps
        if k == len(names):
            return choice
        for value in options[names[k]]:
            steps += 1
            if steps > budget:
                return None
            trial = {**choice, names[k]: value}
            if agree(trial):
                found = search(k + 1, trial)
                if found is not None:
                    return found
        return None

    found = search(0, {})
    if found is not None:
        row.update(found)


def _order_pairs(e: MinedEntity, row: dict[str, Any]) -> None:
    """Start before end: start_time/end_time, date_from/date_to, check_in/check_out, in dates
    and in numbers (seconds into a recording, a price band's bounds)."""
    dated = [n for n, c in e.columns.items() if c.kind in ("date", "datetime", "int", "float")]
    for start in dated:
        for a, b in zip(_START, _END):
            end = start.replace(a, b, 1)
            if a in start and end != start and end in dated and row.get(start) is not None \
                    and row.get(end) is not None and type(row[start]) is type(row[end]):
                if row[start] > row[end]:
                    row[start], row[end] = row[end], row[start]


# Records that take part of a day, and how long one lasts in minutes: a meeting is not two
# months long (deciduus-calendar's events ran 2025-12-07 to 2026-01-31), a shift is.
_TIMED = {**dict.fromkeys("event meeting appointment call session interview lesson class "
                          "webinar consultation visit slot booking reservation block "
                          "timeblock workout".split(), (30, 180)),
          "shift": (240, 600)}


def _timed_length(e: MinedEntity, row: dict[str, Any], rng: random.Random) -> None:
    """The end of a timed record's start/end pair (``start_time``/``end_time``) a plausible
    length after its start, in quarter hours."""
    span = _TIMED.get(e.name.rpartition("_")[2])
    if span is None:
        return
    for start, col in e.columns.items():
        end = start.replace("start", "end", 1)
        if col.kind != "datetime" or "start" not in start or end == start \
                or end not in e.columns or e.columns[end].kind != "datetime" \
                or not row.get(start) or row.get(end) is None:
            continue
        try:
            began = dt.datetime.strptime(str(row[start]), _FORMAT)
        except ValueError:
            continue                     # a value a domain pack wrote in its own format
        minutes = 15 * rng.randint(span[0] // 15, span[1] // 15)
        row[end] = (began + dt.timedelta(minutes=minutes)).strftime(_FORMAT)


# Micros are millionths of the currency unit; amounts in them are whole cents.
_CENT_IN_MICROS = 10_000
# A reduced price beside the price it reduces: ``sale_price`` and ``price``,
# ``discount_amount_micros`` and ``amount_micros``.
_REDUCED = ("sale_", "discount_", "discounted_", "promo_", "promotional_", "special_", "offer_")
# Currencies that differ by design within a row: a conversion's two sides.
_OWN_CURRENCY = ("from", "to", "source", "target", "base", "quote", "settlement", "local",
                 "home", "foreign")


def _agree_money(e: MinedEntity, row: dict[str, Any], rng: random.Random) -> None:
    """A sale price is 5-40% below the price it reduces, and the amounts of one row are in one
    currency (gmc's inventories had a EUR price and a CNY sale price above it). The two sides
    of a conversion (``from_currency``, ``to_currency``) keep their own."""
    for name, col in e.columns.items():
        if col.kind not in ("int", "float") or row.get(name) is None:
            continue
        lowered = name.lower()
        for prefix in _REDUCED:
            regular = name[len(prefix):] if lowered.startswith(prefix) else ""
            if regular in e.columns and isinstance(row.get(regular), int | float):
                sale = row[regular] * rng.uniform(0.6, 0.95)
                step = _CENT_IN_MICROS if lowered.endswith("micros") else 1
                row[name] = (round(sale / step) * step if col.kind == "int"
                             else round(sale, 2))
    currencies = [n for n, c in e.columns.items() if c.kind == "currency"
                  and row.get(n) is not None and not set(words(n)) & set(_OWN_CURRENCY)]
    for name in currencies[1:]:
        row[name] = row[currencies[0]]


def seed_tables(conn: sqlite3.Connection, order: list[Table], region: Region, seed: int) -> None:
    rng = random.Random(seed)
    values = _Values(region, rng, seed)
    values.key_cols = [c for t in order for c in t.entity.columns.values() if c.kind == "key"]
    values.key_names = {c.name for c in values.key_cols}
    values.software = any(t.entity.name in SOFTWARE_NOUNS for t in order)
    ids: dict[str, list[Any]] = {}
    born: dict[tuple[str, Any], dt.datetime] = {}
    rows_of: dict[str, dict[Any, dict[str, Any]]] = {}
    entities = {t.entity.name: t.entity for t in order}
    for table in _seed_order(order, values.key_names):
        e = table.entity
        keyed = [c for c in e.columns.values() if c.kind == "key"]
        count = min(e.count, *(len(values.key_pool(c)) for c in keyed)) if keyed else e.count
        rows = []
        for i in range(count):
            row: dict[str, Any] = {"id": i + 1 if e.integer_ids else f"{table.prefix}_{i + 1:06d}"}
            for role, (name, col) in enumerate(e.columns.items()):
                row[name] = (values.label(e, col, i) if name == e.label and col.kind == "text"
                             else values.value(e, col, i, role, ids))
            if e.states:
                row["status"] = e.states[i] if i < len(e.states) else rng.choice(
                    [e.initial] * 3 + e.states)
            _place_dates(e, row)
            _order_pairs(e, row)
            _timed_length(e, row, rng)
            _agree_money(e, row, rng)
            _share_groups(e, row, rows_of, entities, rng)
            parents = [born[(c.ref, row[n])] for n, c in e.columns.items()
                       if c.kind == "ref" and (c.ref, row[n]) in born]
            parents += [born[("key:" + n, row[n])] for n, c in e.columns.items()
                        if c.kind in ("text", "key", "int") and ("key:" + n, row[n]) in born]
            row["created_at"], row["updated_at"] = _timestamps(rng, max(parents, default=None),
                                                               bool(keyed))
            created = dt.datetime.strptime(row["created_at"], _FORMAT)
            born[(e.name, row["id"])] = created
            for c in keyed:
                born.setdefault(("key:" + c.name, row[c.name]), created)
            rows.append(row)
        if rows:
            cols = list(rows[0])
            conn.executemany(
                f"INSERT INTO {table.name} ({', '.join(q(c) for c in cols)}) VALUES "
                f"({', '.join('?' for _ in cols)})", [tuple(r[c] for c in cols) for r in rows])
        values.issued.update(c.name for c in keyed)
        ids[e.name] = [r["id"] for r in rows]
        rows_of[e.name] = {r["id"]: r for r in rows}

"""Records a reply names by their codes, held against the state.

* ``unknown_code``: a code in the shape of the service's own (``C4UU26``, ``pax_1008``,
  ``#241``, "node 42") that no record, reply or request holds, or one a character longer than a
  code that exists (``C4UU262``);
* ``wrong_record``: an existing record given as the one the episode made ("your booking
  reference is E3GBGW"); a record's name given with another record's code ("Iris field balance
  sheet (bal_000008)"); or, beside the record the request asked about, the code of another
  record of its kind ("its ref is REF-1814" of the look-alike course).
"""

from __future__ import annotations

import re

from agentworld.servers.words import singular

from .findings import Finding
from .state import EpisodeState, code_shapes, columns, exists, mentions, tables

__all__ = ["code_claims", "record_claims"]


def code_claims(state: EpisodeState, reply: str) -> list[Finding]:
    """Codes of the whole reply that name nothing, by shape, by number or by a slip."""
    return _unknown_codes(state, reply) + _numbered(state, reply) + _slips(state, reply)


def record_claims(state: EpisodeState, text: str, *, context: bool) -> list[Finding]:
    """Codes one clause gives to the wrong record (context clauses may name other records)."""
    out = [Finding("wrong_record", q, why) for q, why in pair_claims(state, text)]
    if not context:
        out += _wrong_record(state, text) + _other_than_asked(state, text)
    return out


def _unknown_codes(state: EpisodeState, text: str) -> list[Finding]:
    out = []
    homes: dict[str, list[tuple[str, str]]] = {}
    for table, column, pattern in code_shapes(state.initial, state.template_key):
        for token in set(pattern.findall(text)):
            homes.setdefault(token, []).append((table, column))
    for token, places in homes.items():
        if state.heard(token) or any(exists(db, table, column, token)
                                     for table, column in places
                                     for db in (state.final, state.initial)):
            continue
        table, column = places[0]
        out.append(Finding("unknown_code", token,
                           f"no {singular(table)} {column} {token} exists"))
    for number in set(re.findall(r"(?<![\w&])#(\d{1,7})\b", text)):
        if state.heard(number) or _number_exists(state, int(number)):
            continue
        out.append(Finding("unknown_code", f"#{number}", f"no record is numbered {number}"))
    return out


# "Your booking reference is C4UU26", "created it with id X": the reply gives the code of the
# record it made.
_NAMES_A_RECORD = re.compile(r"\b(?:reference|confirmation|locator|number|id|code|pnr|"
                             r"booking|ticket)\b\s*(?:is|was|:|#|=)|\bwith (?:the )?(?:id|code)"
                             r"\b|\b(?:new|created) \w+(?: \w+)? (?:is )?[\w-]*\d", re.I)


def _wrong_record(state: EpisodeState, text: str) -> list[Finding]:
    """A write's reply that gives as the record it made one that exists but was not made
    ("your booking reference is E3GBGW" when the booking made is C4UU26)."""
    if not _NAMES_A_RECORD.search(text):
        return []
    state.touched()
    out: list[Finding] = []
    for table, column, pattern in code_shapes(state.initial, state.template_key):
        made = state._created.get(table)
        if not made:
            continue
        for token in set(pattern.findall(text)) - {f.quote for f in out}:
            if re.search(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])", state.prompt, re.I):
                continue
            ours = {str(r.get(column)).casefold() for r in made}
            if token.casefold() not in ours and exists(state.final, table, column, token):
                out.append(Finding("wrong_record", token,
                                   f"{token} is not the {singular(table)} this episode made "
                                   f"({', '.join(sorted(ours)[:3])})"))
    return out


def _number_exists(state: EpisodeState, number: int) -> bool:
    numbered = [t for t in tables(state.final)
                if any(c[0] == "number" for c in columns(state.final, t))]
    if not numbered:
        return True  # nothing is numbered: "#3" is not a record's number here
    return any(exists(db, t, "number", number) for db in (state.initial, state.final)
               for t in numbered)


_NUMBERED = re.compile(r"\b([a-z][a-z_]{2,})\s+#?(\d{1,7})\b", re.I)


def _numbered(state: EpisodeState, text: str) -> list[Finding]:
    """"Created node 42" where records of that kind are numbered and none is 42."""
    out = []
    names = {singular(t): t for t in tables(state.final)}
    for m in _NUMBERED.finditer(text):
        table = names.get(singular(m.group(1).casefold()))
        if table is None:
            continue
        keys = [c for c in columns(state.final, table) if c[2]]
        if len(keys) != 1 or "INT" not in keys[0][1]:
            continue
        number = int(m.group(2))
        if not any(exists(db, table, keys[0][0], number) for db in (state.final, state.initial)):
            out.append(Finding("unknown_code", m.group(0),
                               f"no {singular(table)} is numbered {number}"))
    return out


def _slips(state: EpisodeState, text: str) -> list[Finding]:
    """A code one character longer than one that exists ("C4UU262" for C4UU26)."""
    out = []
    for table, column, pattern in code_shapes(state.initial, state.template_key):
        loose = re.sub(r"\{(\d+),(\d+)\}", lambda q: "{" + str(int(q.group(2)) + 1) + "}",
                       pattern.pattern)
        for token in set(re.findall(loose, text)):
            if state.heard(token):
                continue
            near = {token[:i] + token[i + 1:] for i in range(len(token))}
            if any(exists(db, table, column, n) for n in near
                   for db in (state.final, state.initial)):
                out.append(Finding("unknown_code", token,
                                   f"{token} is a slip of an existing {singular(table)} code"))
    return out


def _other_than_asked(state: EpisodeState, text: str) -> list[Finding]:
    """The code of a record other than the one the request named, where the clause names no
    other record of that kind ("Retail week; its ref is REF-1814" when the course asked about
    is REF-1074 and REF-1814 its look-alike)."""
    asked: dict[str, set[str]] = {}
    for _, _, records in mentions(state, state.prompt):
        for table, key in records:
            asked.setdefault(table, set()).add(key)
    if not asked:
        return []
    named = {t for _, _, records in mentions(state, text) for t, _ in records}
    made = {str(r.get(k)) for rows in state.created().values() for r in rows for k in r}
    out = []
    for table, _, pattern in code_shapes(state.initial, state.template_key):
        if table not in asked or table in named:
            continue
        for token in set(pattern.findall(text)):
            if token in made or token.casefold() in state.prompt.casefold():
                continue
            codes = _codes_of(state, table, asked[table])
            if codes and token not in codes:
                out.append(Finding("wrong_record", token,
                                   f"{token} is not the {singular(table)} the request named"))
    return out


def _codes_of(state: EpisodeState, table: str, keys: set[str]) -> set[str]:
    """Every value of the named records' rows (their key and codes)."""
    key = [c[0] for c in columns(state.initial, table) if c[2]]
    if len(key) != 1:
        return set()
    out = set()
    for db in (state.initial, state.final):
        cursor = db.execute(f'SELECT * FROM "{table}" WHERE "{key[0]}" IN '
                            f'({", ".join("?" for _ in keys)})', tuple(keys))
        out |= {str(v) for row in cursor.fetchall() for v in row if v is not None}
    return out


def pair_claims(state: EpisodeState, text: str) -> list[tuple[str, str]]:
    """A record's name given with a code that is another record's ("Iris field balance sheet
    (bal_000008)" when its code is bal_000009)."""
    out = []
    for table, column, pattern in code_shapes(state.initial, state.template_key):
        for m in pattern.finditer(text):
            near = text[max(0, m.start() - 80):m.start()] + " | " + text[m.end():m.end() + 80]
            for position, name, records in mentions(state, near):
                mine = [key for t, key in records if t == table]
                if not mine or m.group(0) in mine:
                    continue
                middle = near.index(" | ")
                gap = near[position + len(name):middle] if position < middle else \
                    near[middle + 3:position]
                if len(gap.strip(" \"'(),:-")) <= 2 and _is_key(state, table, column):
                    out.append((f"{name} ({m.group(0)})",
                                f"{m.group(0)} is not the {singular(table)} {name!r} "
                                f"({', '.join(mine[:2])})"))
    return out


def _is_key(state: EpisodeState, table: str, column: str) -> bool:
    return any(r[1] == column and r[5] for r in state.initial.execute(
        f'PRAGMA table_info("{table}")'))

"""Facts a reply states that the episode never showed: an amount, a date, a name of the
service's own vocabulary.

The agent knows only what the request said and what its calls returned; what it changed is in
the state. So an amount or a date the reply states must be one of those, or a total it labels
as one ("$2,795 in total"), or a figure it works out per item ("$35 per bag"). A capitalised
value of one of the service's small vocabularies (a card brand, a plan) must be one the episode
saw or set: "charged to her Visa" when the reply showed a Mastercard. Plain numbers are left to
the count rules (``counts.py``): a reply works many out ("7 of the 8 pages").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from agentworld.servers.words import singular

from ..answers import date_spans, normal_text, total_spans
from ..values import leaves
from .findings import Finding
from .state import EpisodeState, columns, is_state_column, mentions, tables

__all__ = ["grounding_claims"]


def grounding_claims(state: EpisodeState, text: str, expected: Sequence[Any]) -> list[Finding]:
    """Every amount, date, number and vocabulary word of ``text`` that nothing grounds."""
    return _ungrounded(state, text, expected) + _unseen_words(state, text)


_MONEY = re.compile(r"(?:[$\u20ac\u00a3]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?"
                    r"(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|dollars?|euros?|pounds?)\b)")
# "$35 per bag", "an average of $120": figures the reply worked out, not ones it was shown.
_PER = re.compile(r"[$\u20ac\u00a3]?\s?\d[\d,]*(?:\.\d+)?\s?(?:[A-Z]{3}\s)?(?:each|per \w+|apiece|"
                  r"on average)|\b(?:average|mean) (?:of )?[$\u20ac\u00a3]?\s?\d[\d,]*(?:\.\d+)?",
                  re.I)


def _numbers_seen(state: EpisodeState, expected: Sequence[Any]) -> set[Decimal]:
    """Every number the episode showed or asked for, also read as cents and as major units."""
    said = [n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", state.prompt)]
    values = [step.output for step in state.trajectory] + [
        step.arguments for step in state.trajectory] + [
        r for rows in state.touched().values() for r in rows.values()] + list(expected) + said
    out: set[Decimal] = set()
    for value in leaves(values):
        text = str(value).strip()
        if re.fullmatch(r"-?\d+(?:\.\d+)?", text):
            number = Decimal(text)
            out.update({number, number / 100, number * 100})
    return out


def _dates_seen(state: EpisodeState, expected: Sequence[Any]) -> set[str]:
    out = {iso for iso, _, _ in date_spans(state.prompt)}
    for value in list(state.said()) + [str(e) for e in expected]:
        found = re.match(r"(\d{4}-\d{2}-\d{2})", value)
        if found:
            out.add(found.group(1))
    for rows in state.touched().values():
        for row in rows.values():
            out |= {str(v)[:10] for v in row.values() if isinstance(v, str)
                    and re.match(r"\d{4}-\d{2}-\d{2}", v)}
    return out


def _ungrounded(state: EpisodeState, text: str, expected: Sequence[Any]) -> list[Finding]:
    """Amounts and dates the reply states that nothing it was shown, changed or asked holds.
    A figure the reply labels as a total or an average it worked out is left undecided."""
    out = []
    summed = [m.span() for m in total_spans(text)] + [m.span() for m in _PER.finditer(text)]
    seen = None
    for m in _MONEY.finditer(text):
        if any(a <= m.start() < b or a < m.end() <= b for a, b in summed):
            continue
        raw = (m.group(1) or m.group(2)).replace(",", "")
        seen = _numbers_seen(state, expected) if seen is None else seen
        if Decimal(raw) not in seen:
            out.append(Finding("unknown_amount", m.group(0),
                               f"no reply, record or request shows {m.group(0).strip()}"))
    dates = None
    for iso, start, end in date_spans(text):
        dates = _dates_seen(state, expected) if dates is None else dates
        if iso not in dates:
            out.append(Finding("unknown_date", text[start:end],
                               f"no reply, record or request shows {iso}"))
    return out


# Words too common to tell a record apart ("open", "new"), whatever column holds them.
_COMMON = frozenset("""new all none other default yes no true false any some one two low high
normal medium active inactive open closed done draft pending public private enabled disabled
on off ok none free paid yes standard basic custom manual auto automatic daily weekly monthly
internal external primary secondary""".split())
_VOCABULARY: dict[str, dict[str, str]] = {}


def _vocabulary(state: EpisodeState) -> dict[str, str]:
    """The word values of the service's small vocabularies (a text column of 2 to 15 values),
    case-folded, with the column they come from."""
    key = state.template_key or ""
    if key in _VOCABULARY:
        return _VOCABULARY[key]
    out: dict[str, str] = {}
    db = state.initial
    for table in tables(db):
        for column, _declared, is_key in columns(db, table):
            if is_key or column.endswith(("_id", "_at")) or column in ("id", "name", "title") \
                    or is_state_column(column):
                continue   # a state is read against the record it is said of (states.py)
            values = [r[0] for r in db.execute(
                f'SELECT DISTINCT "{column}" FROM "{table}" LIMIT 16').fetchall()]
            if not 2 <= len(values) <= 15 or not all(isinstance(v, str) for v in values):
                continue
            for v in values:
                folded = v.casefold()
                if 3 <= len(v) <= 30 and re.fullmatch(r"[A-Za-z][A-Za-z -]+", v) \
                        and folded not in _COMMON:
                    out.setdefault(folded, f"{table}.{column}")
    if key:
        if len(_VOCABULARY) > 64:
            _VOCABULARY.clear()
        _VOCABULARY[key] = out
    return out


def _related(state: EpisodeState) -> set[str]:
    """The values of the records the changed rows and the request point at (the card a new
    payment was charged to, the passenger the request names): what the episode's own records
    say is not made up."""
    cached = getattr(state, "_related_values", None)
    if cached is not None:
        return cached
    names = {singular(t): t for t in tables(state.final)}

    def referred(column: str) -> str | None:
        noun = column[:-3]
        return names.get(noun) or next((t for s, t in names.items() if s.endswith("_" + noun)),
                                       None)

    out: set[str] = set()
    rows = [r for rs in state.touched().values() for r in rs.values()]
    for row in rows:
        for column, value in row.items():
            table = referred(column) if column.endswith("_id") and value is not None else None
            if table is None:
                continue
            key = [c[0] for c in columns(state.final, table) if c[2]]
            if len(key) == 1:
                found = state.final.execute(f'SELECT * FROM "{table}" WHERE "{key[0]}" = ?',
                                            (value,)).fetchone()
                out |= {str(v).casefold() for v in (found or ()) if v is not None}
    for _, _, records in mentions(state, state.prompt):
        for table, key in records[:3]:
            pk = [c[0] for c in columns(state.final, table) if c[2]]
            if len(pk) == 1:
                found = state.final.execute(f'SELECT * FROM "{table}" WHERE "{pk[0]}" = ?',
                                            (key,)).fetchone()
                out |= {str(v).casefold() for v in (found or ()) if v is not None}
    state._related_values = out
    return out


def _unseen_words(state: EpisodeState, text: str) -> list[Finding]:
    """A value of one of the service's small vocabularies, written as a name, that the episode
    never saw or set ("charged to her Visa" when the passenger's card is a Mastercard)."""
    folded = normal_text(text)
    vocabulary = _vocabulary(state)
    if not vocabulary:
        return []
    touched = {str(v).casefold() for rows in state.touched().values() for r in rows.values()
               for v in r.values() if v is not None}
    out = []
    for value, where in vocabulary.items():
        if value not in folded:
            continue
        # Only as a name: written with a capital inside the sentence ("her Visa"), not an
        # ordinary word of it ("pull" of "pull request").
        found = re.search(r"(?<=[a-z,;:] )" + re.escape(value[:1].upper() + value[1:])
                          + r"(?![\w-])", text)
        if found is None:
            continue
        if value in state.said() or value in touched or value in state.prompt.casefold() or \
                value in _related(state):
            continue
        out.append(Finding("unknown_value", value, f"nothing the episode saw or set is "
                                                   f"{value!r} ({where})"))
    return out

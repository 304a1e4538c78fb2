"""What a reply says records *are*, held against the state.

* **A named record in a state** ("juniper-security (still active)", "Dentist is confirmed"):
  the state words that follow a record's name, up to the next record named, are its. A present
  statement ("is", "still", "now", "at", "an") must hold after the episode; a past one ("was")
  before or after it.
* **"You"**, the acting user of the prompt ("Acting as ravi-rossi", "member id usr_..."): the
  rows that belong to that user, narrowed to the ones that link the other records the sentence
  names ("only triage access on harborline/cli").
* **A grant between named records** (a page shared with a member at a level), in a table with
  no label of its own: the rows that link the records named, or the ones this episode made.
* **A count of records in a state** ("7 are live and 5 are validated"), of the table the
  sentence or the question counts: checked when the question names no record to scope it.
* **The newest or the oldest** ("the most recently created is Sierra renewal task"): among the
  records a reply listed with it.
* **A named record's field** ("(it had a 30-day retention)", "of contact type X"): the column
  whose words the sentence says after the name must hold the value it gives.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentworld.servers.words import singular

from ..answers import date_spans, normal_text
from .state import (
    EpisodeState,
    linking_rows,
    mentions,
    named_keys,
    named_rows,
    state_tables,
)

__all__ = ["state_claims", "count_claims", "attribute_claims", "superlative_claims",
           "StateFinding"]

_NEGATION = re.compile(r"\b(?:not|n't|no longer|never|instead|rather than|unlike)\b|n't\b", re.I)
_YOU = re.compile(r"\b(?:you|your|you're|you've)\b", re.I)
_ADVERBS = r"(?:(?:currently|still|now|already|also|actually|really|presently|all)\s+)*"
_PRESENT = re.compile(r"(?:\b(?:is|are|be|being|stays?|remains?|still|now|currently|set to|"
                      r"as|at|to|an?|the)\s+" + _ADVERBS + r")$")
_PAST = re.compile(r"(?:\b(?:was|were|been|had been|used to be|previously)\s+" + _ADVERBS
                   + r")$")
_QUALIFIER = re.compile(r"\s+(?:access|level|role|permission|rights?|status|state)\b")

StateFinding = tuple[str, str]   # (quote, why)


def _forms(value: str, domain: Sequence[str]) -> list[str]:
    """How a reply may name a state: in full ("can edit"), or by a word of it that no other
    state of the column has ("edit access")."""
    words_of = {v: normal_text(v).split() for v in domain}
    mine = words_of[value]
    others = {w for v, ws in words_of.items() if v != value for w in ws}
    return [" ".join(mine)] + [w for w in {mine[0], mine[-1]} if len(mine) > 1
                               and w not in others and len(w) >= 3]


def _tense(form: str, folded: str) -> str | None:
    """"present" or "past" when ``folded`` says something *is* (or was) ``form`` ("is
    closed", "still active", "at can edit", "an admin", "edit access"), None when it does not
    (as in "I closed it")."""
    found = None
    for m in re.finditer(r"(?<![\w-])" + re.escape(form) + r"(?![\w-])", folded):
        before = folded[max(0, m.start() - 40):m.start()]
        if _PAST.search(before):
            found = found or "past"
        elif _PRESENT.search(before) or _QUALIFIER.match(folded[m.end():m.end() + 14]):
            return "present"
    return found


# States a record of any service may be said to be in, beyond the ones its data shows.
_LIFECYCLE = ("queued", "running", "pending", "completed", "failed", "succeeded", "cancelled",
              "canceled", "active", "inactive", "archived", "deleted", "draft", "published",
              "paused", "suspended", "scheduled", "expired", "approved", "rejected", "resolved",
              "merged", "shipped", "delivered", "confirmed", "ticketed", "blocked", "enabled",
              "disabled", "in progress", "on hold", "finished", "live", "stopped")


def _said(states: dict[str, tuple], text: str, *, lifecycle: bool = True
          ) -> dict[str, list[tuple[str, str]]]:
    """Per state column, the (value, tense) pairs ``text`` states: a value of the column, or a
    common lifecycle state ("it is queued" of a job whose states are active and cancelled)."""
    folded = " " + normal_text(text) + " "
    out: dict[str, list[tuple[str, str]]] = {}
    for column, domain in states.items():
        for value in domain:
            tense = next((t for t in (_tense(f, folded) for f in _forms(value, domain)) if t),
                         None)
            if tense:
                out.setdefault(column, []).append((value, tense))
        if lifecycle and (column in ("status", "state") or column.endswith(("_status",
                                                                            "_state"))):
            known = {normal_text(v) for v in domain}
            for word in _LIFECYCLE:
                # Said outright of the record ("it is queued"), not as an adjective ("the
                # failed checks").
                if word not in known and re.search(r"\b(?:is|are|was|were|still|now|currently|"
                                                   r"remains?|stays?) (?:" + _ADVERBS + r")?"
                                                   + re.escape(word) + r"\b", folded):
                    out.setdefault(column, []).append((word, "present"))
    return out


# Lifecycle words that name one state in different services' words.
_ALIKE = [{"pending", "queued", "waiting", "scheduled", "requested", "new", "in progress"},
          {"running", "in progress", "active", "started", "processing"},
          {"completed", "done", "succeeded", "success", "finished", "closed", "resolved",
           "complete"},
          {"failed", "failure", "error", "errored"},
          {"cancelled", "canceled", "aborted", "voided"},
          {"paused", "suspended", "on hold", "stopped"},
          {"inactive", "disabled", "deactivated"}, {"active", "enabled", "live"}]


def _alike(value: str) -> set[str]:
    value = normal_text(value)
    return set().union({value}, *[group for group in _ALIKE if value in group])


def _wrong(rows_now: list[dict], rows_then: list[dict], column: str,
           said: list[tuple[str, str]]) -> set[str] | None:
    """The values the rows hold when none fits what was said (present: after the episode;
    past: before or after it), else None. A state said in other words fits ("pending" a
    queued run)."""
    now = {normal_text(r[column]) for r in rows_now if r.get(column) is not None}
    then = {normal_text(r[column]) for r in rows_then if r.get(column) is not None}
    for value, tense in said:
        allowed = now if tense == "present" else now | then
        if _alike(value) & allowed or not allowed:
            return None
    return now or then


def _segments(state: EpisodeState, text: str) -> dict[str, str]:
    """Each record name of ``text`` with the words that speak of it: from the name to the next
    record named."""
    found = mentions(state, text)
    out: dict[str, str] = {}
    for i, (position, name, _) in enumerate(found):
        end = found[i + 1][0] if i + 1 < len(found) else len(text)
        out[name] = out.get(name, "") + " " + text[position:end]
    return out


def _narrowed(rows: list[dict], keys: set[str]) -> list[dict]:
    """The rows that link the most of ``keys`` (all of them when none links any)."""
    scored = [(sum(1 for k, v in r.items() if k != "_db" and str(v) in keys), r) for r in rows]
    best = max((h for h, _ in scored), default=0)
    return [r for h, r in scored if h == best] if best else rows


def _linked(rows: list[dict], others: list[tuple[str, str]], actor: str | None) -> list[dict]:
    """The rows that refer to the most of the other records the sentence names (by their
    ``<record>_id`` column) and to the acting user; all of them when none refers to any."""
    def score(row: dict) -> int:
        hits = sum(1 for t, k in others if str(row.get(f"{singular(t)}_id")) == k)
        return hits + (actor is not None and any(str(v) == actor for v in row.values()))

    best = max((score(r) for r in rows), default=0)
    return [r for r in rows if score(r) == best] if best else rows


def state_claims(state: EpisodeState, text: str, actor: str | None) -> list[StateFinding]:
    """Named records, "you" and grants said to be in a state they are not in (module docs)."""
    if _NEGATION.search(text):
        return []
    out: list[StateFinding] = []
    you = actor is not None and _YOU.search(text) is not None
    segments = _segments(state, text)
    keys = named_keys(state, text) | ({actor} if you else set())
    for table, label, states in state_tables(state.initial, state.template_key):
        if not _said(states, text):
            continue
        groups = named_rows(state, table, label, text, actor if you else None) if label \
            else {}
        if not groups and not segments:
            groups = _referred(state, table, text) or _made_it(state, table, text)
        for name, rows in groups.items():
            # A name several records share ("flight MW131" runs every day) fits a statement
            # when any of them does; its own words are the ones after it.
            said = _said(states, segments.get(name.casefold(), text))
            rows = _linked(rows, [(t, k) for _, _, records in mentions(state, text)
                                  for t, k in records if t != table], actor if you else None)
            now = [r for r in rows if r.get("_db") == "final"]
            then = [r for r in rows if r.get("_db") == "initial"]
            for column, values in said.items():
                have = _wrong(now, then, column, values)
                if have is not None:
                    out.append((text.strip(), f"{singular(table)} {name!r} has {column} "
                                              f"{'/'.join(sorted(have))}, not "
                                              f"{'/'.join(v for v, _ in values)}"))
        if not groups and label is None and keys:
            out += _grants(state, table, states, text, keys)
    return out


_IT = re.compile(r"\bit(?:'s|\s+is|\s+was|\s+has been)\b", re.I)


def _made_it(state: EpisodeState, table: str, text: str) -> dict[str, list[dict]]:
    """"Submitted the job; it is queued": the one record of ``table`` this episode made."""
    made = state.created().get(table, [])
    if len(made) != 1 or not _IT.search(text):
        return {}
    return {f"the {singular(table)} made": [dict(made[0], _db="final")]}


_THE = re.compile(r"\b(?:the|this|that|its|their)\s+([a-z][\w-]*)", re.I)


def _referred(state: EpisodeState, table: str, text: str) -> dict[str, list[dict]]:
    """"The flight is delayed": the record of ``table`` the request named, when the sentence
    names none and calls it by its kind ("the flight"), narrowed by the request's dates and
    other named records (flight MW342 *on 2026-03-03*)."""
    nouns = {singular(n.casefold()) for n in _THE.findall(text)}
    if singular(table) not in nouns:
        return {}
    named = [(name, key) for _, name, records in mentions(state, state.prompt)
             for t, key in records if t == table]
    if len({name for name, _ in named}) != 1:
        return {}
    keys = named_keys(state, state.prompt) | set(re.findall(r"\d{4}-\d{2}-\d{2}", state.prompt))
    rows = []
    for tag, db in (("final", state.final), ("initial", state.initial)):
        ids = [k for _, k in named]
        column = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if r[5]][0]
        cursor = db.execute(f'SELECT * FROM "{table}" WHERE "{column}" IN '
                            f'({", ".join("?" for _ in ids)})', ids)
        cols = [d[0] for d in cursor.description]
        rows += [dict(zip(cols, r, strict=True), _db=tag) for r in cursor.fetchall()]
    narrowed = _narrowed(rows, {k for k in keys if not any(k == n for n, _ in named)}
                         | {d for d in keys if re.fullmatch(r"\d{4}-\d{2}-\d{2}", d)})
    return {named[0][0]: narrowed}


def _grants(state: EpisodeState, table: str, states: dict, text: str, keys: set[str]
            ) -> list[StateFinding]:
    linked = linking_rows(state, table, keys, at_least=2)
    if not linked:
        # "Shared the pages with Giulia at can edit": the grants this episode made that link a
        # named record.
        linked = [dict(r, _db="final") for r in state.touched().get(table, {}).values()
                  if any(str(v) in keys for v in r.values())]
    out = []
    now = [r for r in linked if r.get("_db", "final") == "final"]
    then = [r for r in linked if r.get("_db") == "initial"]
    for column, values in _said(states, text, lifecycle=False).items():
        have = _wrong(now, then, column, values)
        if have is not None:
            out.append((text.strip(), f"the {singular(table)} of the records named has {column} "
                                      f"{'/'.join(sorted(have))}, not "
                                      f"{'/'.join(v for v, _ in values)}"))
    return out


_COUNT_STATE = re.compile(
    r"(?<![\w#.$])(\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(?:([a-z][\w-]*)\s+)?(?:are|is|were|was|remain|remains|stay|stays|have|has)\s+"
    r"(?:still\s+|now\s+|currently\s+|the\s+status\s+|status\s+)?([a-z][a-z_ -]{2,30}?)\b", re.I)
_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten "
                                     "eleven twelve".split())}


def count_claims(state: EpisodeState, text: str, counted: Sequence[str], scoped: bool
                 ) -> list[StateFinding]:
    """"7 are live and 5 are validated": how many records of the counted table are in each
    state, when the question names nothing that narrows it (``scoped``)."""
    if scoped or _NEGATION.search(text):
        return []
    out = []
    for table, _, states in state_tables(state.initial, state.template_key):
        for m in _COUNT_STATE.finditer(text):
            noun = (m.group(2) or "").casefold()
            nouns = {singular(n) for n in counted} | ({singular(noun)} if noun else set())
            if singular(table) not in nouns and table not in nouns:
                continue
            raw = m.group(1).casefold()
            claimed = _WORDS[raw] if raw in _WORDS else int(raw)
            counts = {}
            for column, domain in states.items():
                value = next((v for v in domain if normal_text(v) == normal_text(m.group(3))),
                             None)
                if value is not None:
                    counts[column] = state.final.execute(
                        f'SELECT COUNT(*) FROM "{table}" WHERE "{column}" = ?',
                        (value,)).fetchone()[0]
            # "6 tasks are done": any column whose "done" counts six says it.
            if counts and claimed not in counts.values():
                column, real = next(iter(counts.items()))
                out.append((m.group(0), f"{real} {table} have {column} {m.group(3)}, not "
                                        f"{claimed}"))
    return out


_GENERIC_WORDS = frozenset({"id", "at", "on", "by", "of", "the", "is", "has", "count", "name"})


def attribute_claims(state: EpisodeState, text: str) -> list[StateFinding]:
    """A named record said to have a field it has not: "(it had a 30-day retention)" of a
    backup whose ``retention_days`` is 47, "of contact type orchid-contact-type-1". The field is
    the column whose every word the sentence says after the record's name; the value, the one
    number there (or a value the column holds for some record)."""
    if _NEGATION.search(text):
        return []
    out: list[StateFinding] = []
    segments = _segments(state, text)
    for _, name, records in mentions(state, text):
        if len(records) > 3:
            continue
        segment = segments.get(name, "")[len(name) + 1:]
        said = {singular(w) for w in re.findall(r"[a-z]+", segment.casefold())}
        # Records that share the name (an old project and the one just made) fit the sentence
        # when any of them does.
        verdicts: dict[str, list[tuple[bool, str]]] = {}
        for table, key in records:
            for column, row_now, row_then in _record_rows(state, table, key):
                words = [singular(w) for w in column.split("_") if w not in _GENERIC_WORDS] \
                    if "_" in column else [singular(column)]
                if not words or column.endswith(("_at", "_id")) or not all(
                        _says_word(w, said) for w in words):
                    continue
                claim = _stated_value(state, table, column, row_now or row_then, segment)
                if claim is not None:
                    verdicts.setdefault(column, []).append(
                        (claim in _values(row_now, row_then, column),
                         f"{singular(table)} {name!r} has {column} "
                         f"{(row_now or row_then).get(column)!r}, not {claim!r}"))
        for found in verdicts.values():
            if not any(ok for ok, _ in found):
                out.append((text.strip(), found[0][1]))
    return out


def _says_word(word: str, said: set[str]) -> bool:
    """Whether a column's word is among the sentence's, up to its ending ("departs" says
    ``departure``, "retention" says ``retention_days`` with "30-day")."""
    return word in said or len(word) >= 5 and any(
        len(s) >= 5 and (s.startswith(word[:5]) or word.startswith(s[:5])) for s in said)


def _record_rows(state: EpisodeState, table: str, key: str):
    keys = [r[1] for r in state.initial.execute(f'PRAGMA table_info("{table}")') if r[5]]
    if len(keys) != 1:
        return []
    now = state.final.execute(f'SELECT * FROM "{table}" WHERE "{keys[0]}" = ?', (key,))
    names = [d[0] for d in now.description]
    row_now = now.fetchone()
    then = state.initial.execute(f'SELECT * FROM "{table}" WHERE "{keys[0]}" = ?',
                                 (key,)).fetchone()
    row_now = dict(zip(names, row_now, strict=True)) if row_now is not None else {}
    row_then = dict(zip(names, then, strict=True)) if then is not None else {}
    return [(c, row_now, row_then) for c in names if c not in keys]


def _values(row_now: dict, row_then: dict, column: str) -> set[str]:
    return {normal_text(r[column]) for r in (row_now, row_then)
            if r.get(column) is not None}


def _dates_out(text: str) -> str:
    for _, start, end in reversed(date_spans(text)):
        text = text[:start] + " " + text[end:]
    return text


def _stated_value(state: EpisodeState, table: str, column: str, row: dict, segment: str
                  ) -> str | None:
    """The value ``segment`` gives the field: its one number for a numeric field, else a value
    the column holds for some record, written out whole."""
    value = row.get(column)
    if isinstance(value, int | float) and not isinstance(value, bool):
        numbers = re.findall(r"(?<![\w.#-])-?\d+(?:\.\d+)?(?![\w.])|(?<![\w.#])\d+(?=-)",
                             _dates_out(segment))
        if len(numbers) != 1:
            return None
        number = float(numbers[0])
        if "cent" in column or "micro" in column:
            # An amount kept in minor units is said in major ones.
            scale = 100 if "cent" in column else 1_000_000
            if abs(number * scale - value) < 0.5:
                return normal_text(value)
        return normal_text(int(number) if number.is_integer() else number)
    if isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}", value):
        days = [iso for iso, _, _ in date_spans(segment)]
        return days[0] if len(days) == 1 and days[0] != value[:10] else (
            normal_text(value) if days else None)
    if not isinstance(value, str):
        return None
    folded = " " + normal_text(segment) + " "
    domain = [r[0] for r in state.initial.execute(
        f'SELECT DISTINCT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL LIMIT 200')]
    said = [d for d in domain if isinstance(d, str) and len(d) >= 3
            and f" {normal_text(d)} " in folded]
    # A code of the column's own family that no record holds ("orchid-contact-type-1" beside
    # "orchid-contact-type-2") is a value too.
    families = {re.sub(r"[-_]\d+$", "", d) for d in domain if isinstance(d, str)
                and re.search(r"[-_]", d)}
    said += [t for t in re.findall(r"[\w-]+", folded) if t not in said and "-" in t
             and re.sub(r"[-_]\d+$", "", t) in families]
    return normal_text(said[0]) if len(said) == 1 else None


_SUPERLATIVE = re.compile(r"\b(most recent(?:ly (?:created|added|updated))?|newest|latest|"
                          r"last (?:created|added)|oldest|earliest|first (?:created|added))\b",
                          re.I)


def superlative_claims(state: EpisodeState, text: str) -> list[StateFinding]:
    """"The most recently created is Sierra renewal task": among the records a reply listed
    with the one named, it must be the newest (or the oldest) by creation."""
    m = _SUPERLATIVE.search(text)
    if m is None or _NEGATION.search(text):
        return []
    newest = not m.group(1).casefold().startswith(("oldest", "earliest", "first"))
    out = []
    for position, name, _ in mentions(state, text):
        if position < m.end():
            continue
        rows = _listed_with(state, name)
        stamped = [r for r in rows if isinstance(r.get("created_at"), str)]
        if len(stamped) >= 2:
            pick = (max if newest else min)(stamped, key=lambda r: r["created_at"])
            if not _names_it(pick, name):
                label = next((v for v in pick.values() if isinstance(v, str)), "")
                out.append((text.strip(), f"the {m.group(1)} listed is {label!r}, not "
                                          f"{name!r}"))
        break
    return out


def _names_it(row: dict, name: str) -> bool:
    return any(isinstance(v, str) and v.casefold() == name for v in row.values())


def _listed_with(state: EpisodeState, name: str) -> list[dict]:
    """The rows of the last reply that listed the record named ``name`` among others."""
    for step in reversed(state.trajectory):
        if not step.ok or not isinstance(step.output, dict):
            continue
        for value in step.output.values():
            if isinstance(value, list) and any(isinstance(r, dict) and _names_it(r, name)
                                               for r in value):
                return [r for r in value if isinstance(r, dict)]
    return []

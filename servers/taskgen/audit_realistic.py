"""The audit's realistic variants: what an agent really does, right and wrong.

Near misses (must fail):

* ``dictated_changed``: a value the request states, written slightly off: a time twelve hours
  out, a date a year early, a number one off, a name in another case;
* ``unrequested_column``: a created record with an optional field set that nobody asked for;
* ``false_claim``: the right work, then a reply that names a code that does not exist or an
  act that did not happen;
* ``hedged_answer``: the right value, hedged ("about 7", "probably X, but I'm not sure");
* ``wrong_side_fact``: the right answer plus a false fact: a wrong weekday, a named record in a
  state it is not in, a code that does not exist;
* ``half_job``: only the first half of a job over several records;
* ``order_swapped``: steps the request orders ("first comment, then close") done the other
  way round.

Equivalents (must pass):

* ``independent_reordered``: every run of independent writes done in the other order;
* ``default_presentation``: presentation arguments (sort, order, format) left to their defaults;
* ``answer_from_listing``: the answer read from another tool's reply (a listing) instead of the
  reference's lookup;
* ``labelled_context``: the answer followed by true, clearly labelled context;
* ``case_variant``: a value whose domain ignores case (a hex colour, an e-mail) in other case.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from agentworld.servers import Session
from agentworld.servers.words import words

from .audit_variants import Variants, id_args
from .checks import answer_facts, number_text
from .effects import bookkeeping_of, independent_order, probe
from .order import asks_order
from .presentation import presentation_args
from .reply.acts import ACTION_VERBS
from .reply.state import code_shapes, state_tables
from .specified import says, scalars
from .values import CASE_BLIND, kind_of

__all__ = ["AgentVariants", "AGENT_EQUIVALENT", "AGENT_NEAR_MISS"]

AGENT_EQUIVALENT = ("independent_reordered", "default_presentation", "answer_from_listing",
                    "labelled_context", "case_variant")
AGENT_NEAR_MISS = ("dictated_changed", "unrequested_column", "false_claim", "hedged_answer",
                   "wrong_side_fact", "half_job", "order_swapped")
_MAKERS = frozenset({"create", "add", "new", "post", "book", "insert", "schedule", "make",
                     "register", "open", "upload", "attach", "log", "submit", "record", "issue"})
_NEVER_SET = re.compile(r"limit|cursor|offset|page|token|secret|password|confirm|dry_run|"
                        r"force|idempotency|api_key|key$", re.I)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class AgentVariants(Variants):
    """The classic variants (:class:`Variants`) plus the realistic ones above."""

    # -- near misses ---------------------------------------------------------------------------
    def dictated_changed(self):
        prompt = " " + self.record.prompt.casefold() + " "
        made = 0
        for i in self.mutations:
            name, args = self.calls[i]
            for key, value in args.items():
                if key in id_args(args) or isinstance(value, bool) or made >= 2:
                    continue
                if not (isinstance(value, str | int | float) and says(prompt, value)):
                    continue
                other = shifted(value, self.rng, key)
                if other is None or other == value:
                    continue
                calls = [list(c) for c in self.calls]
                calls[i] = [name, {**args, key: other}]
                made += 1
                yield calls, self.answer, f"{name}.{key}: {value!r} -> {other!r}"

    def unrequested_column(self):
        for i in self.mutations:
            name, args = self.calls[i]
            if (words(name) or [""])[0] not in _MAKERS:
                continue
            spec = self.env.tools.get(name)
            props = spec.input_schema.get("properties", {})
            shaped = presentation_args(spec)
            for key, schema in props.items():
                if key in args or key in shaped or _NEVER_SET.search(key) or key.endswith(
                        ("_id", "_ids")) or not isinstance(schema, dict):
                    continue
                value = _plausible(schema)
                if value is None:
                    continue
                calls = [list(c) for c in self.calls]
                calls[i] = [name, {**args, key: value}]
                yield calls, self.answer, f"{name}.{key} = {value!r}, not asked for"
                return

    def false_claim(self):
        base = (self.answer + " ") if self.answer else "Done. "
        code = self._made_code()
        if code is not None:
            yield self.calls, f"{base}The reference is {self._garbled(code)}.", "a wrong code"
        verb = self._undone_verb()
        if verb is not None:
            yield self.calls, f"{base}I also {verb} everyone involved to let them know.", \
                f"claims it {verb} people"

    def hedged_answer(self):
        if len(self.specs) != 1:
            return
        value = self.answer or ""
        if self.specs[0]["type"] in ("number", "money"):
            yield self.calls, f"About {value}.", "about"
        yield self.calls, f"Probably {value}, but I'm not sure.", "probably"

    def wrong_side_fact(self):
        if len(self.specs) != 1 or not self.answer:
            return
        spec = self.specs[0]
        if spec["type"] == "date":
            day = dt.date.fromisoformat(str(spec["value"])[:10])
            wrong = _WEEKDAYS[(day.weekday() + 1) % 7]
            yield self.calls, f"{wrong}, {day.isoformat()}", f"{wrong} for a {day:%A}"
            return
        fact = self._false_state()
        if fact is not None:
            yield self.calls, f"{self.answer}. By the way, {fact}.", fact
            return
        code = self._seen_code()
        if code is not None:
            yield self.calls, f"{self.answer} (record {self._garbled(code)})", \
                "a code that is nowhere"

    def half_job(self):
        by_tool: dict[str, list[int]] = {}
        for i in self.mutations:
            by_tool.setdefault(self.calls[i][0], []).append(i)
        for tool, indexes in by_tool.items():
            if len(indexes) >= 3:
                dropped = set(indexes[(len(indexes) + 1) // 2:])
                calls = [c for j, c in enumerate(self.calls) if j not in dropped]
                yield calls, self.answer, f"{len(indexes) - len(dropped)} of {len(indexes)} " \
                                          f"{tool} calls"
                return

    def order_swapped(self):
        if not asks_order(self.record.prompt):
            return
        for a, b in zip(self.mutations, self.mutations[1:], strict=False):
            if b == a + 1 and self.calls[a][0] != self.calls[b][0]:
                calls = [list(c) for c in self.calls]
                calls[a], calls[b] = calls[b], calls[a]
                yield calls, self.answer, f"{self.calls[b][0]} before {self.calls[a][0]}"
                return

    # -- equivalents ---------------------------------------------------------------------------
    def independent_reordered(self):
        if asks_order(self.record.prompt):
            return
        outputs, changed = probe(self.env, self.calls, seed=self.record.session_seed,
                                 skip_columns=bookkeeping_of(self.env)[1])
        other = independent_order(self.env, self.calls, outputs, changed)
        if other is not None and other != self.calls:
            yield other, self.answer, "independent writes reversed"

    def default_presentation(self):
        calls, dropped = [], []
        for name, args in self.calls:
            shaped = presentation_args(self.env.tools.get(name)) if name in self.env.tools \
                else set()
            kept = {k: v for k, v in args.items() if k not in shaped}
            dropped += [f"{name}.{k}" for k in args if k in shaped]
            calls.append([name, kept])
        if dropped:
            yield calls, self.answer, "defaults for " + ", ".join(dropped)

    def answer_from_listing(self):
        reads = [i for i, k in enumerate(self.kinds) if k == "query"]
        if len(self.specs) != 1 or not reads:
            return
        last = reads[-1]
        facts = answer_facts(self.specs[0])
        tried = {self.calls[last][0]}
        session = Session(self.env, seed=self.record.session_seed)
        try:
            for name, args in self.calls[:last]:
                session.call(name, args)
            for name, node in sorted(self.graph.nodes.items()):
                if node.kind != "query" or name in tried:
                    continue
                for args in _listing_args(node.spec, self.calls[last][1]):
                    result = session.call(name, args)
                    if result.ok and facts & scalars(result.data, set(), _fold):
                        calls = [list(c) for j, c in enumerate(self.calls) if j != last]
                        calls.insert(last, [name, args])
                        yield calls, self.answer, f"{name} instead of {self.calls[last][0]}"
                        return
        finally:
            session.close()

    def labelled_context(self):
        if not self.specs or not self.answer:
            return
        fact = self._true_fact()
        if fact is not None:
            yield self.calls, f"{self.answer}. For comparison, {fact}.", fact

    def case_variant(self):
        for i in self.mutations:
            name, args = self.calls[i]
            for key, value in args.items():
                if isinstance(value, str) and kind_of(key, value) in CASE_BLIND:
                    other = other_case(value)
                    if other != value:
                        calls = [list(c) for c in self.calls]
                        calls[i] = [name, {**args, key: other}]
                        yield calls, self.answer, f"{name}.{key} = {other!r}"
                        return

    # -- helpers -------------------------------------------------------------------------------
    def _codes_in(self, data: Any) -> list[str]:
        db = self.env.template.clone()
        try:
            shapes = code_shapes(db, None)
        finally:
            db.close()
        text = " ".join(sorted(scalars(data, set(), str)))
        return [t for _, _, pattern in shapes for t in pattern.findall(text)]

    def _garbled(self, code: str) -> str:
        """A code one slip away from ``code`` that no record and no reply holds."""
        seen = scalars([s.output for s in self.ref.steps], set(), str)
        db = self.env.template.clone()
        try:
            values = {str(v) for t in [r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
                for row in db.execute(f'SELECT * FROM "{t}"') for v in row}
        finally:
            db.close()
        for candidate in _slips(code):
            if candidate not in values and candidate not in seen:
                return candidate
        return code + "7"

    def _made_code(self) -> str | None:
        """A code of a record the reference made (its reply names it)."""
        outputs = [s.output for s, k in zip(self.ref.steps, self.kinds, strict=False)
                   if k == "mutation"]
        codes = self._codes_in(outputs)
        return codes[0] if codes else None

    def _seen_code(self) -> str | None:
        codes = self._codes_in([s.output for s in self.ref.steps])
        return codes[0] if codes else None

    def _undone_verb(self) -> str | None:
        names = [n.lower() for n in self.env.tools.names()]
        db = self.env.template.clone()
        try:
            tables = [r[0].lower() for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
        finally:
            db.close()
        for verb in ("emailed", "texted", "notified", "invoiced", "messaged"):
            if not any(stem in n for stem in ACTION_VERBS[verb] for n in names + tables):
                return verb
        return None

    def _state_rows(self):
        """(label, column, its value after the reference, the values it holds neither before
        nor after) of the records the prompt names."""
        db = self.env.template.clone()
        after = Session(self.env, seed=self.record.session_seed)
        try:
            for name, args in self.calls:
                after.call(name, args)
            for table, label, columns in state_tables(db, None):
                for column, values in columns.items():
                    query = (f'SELECT "{label}", "{column}" FROM "{table}" WHERE "{label}" IN '
                             f'(SELECT "{label}" FROM "{table}" GROUP BY "{label}" '
                             f'HAVING COUNT(*) = 1)')
                    now = dict(after.db.execute(query).fetchall())
                    for name, value in db.execute(query).fetchall():
                        if isinstance(name, str) and len(name) >= 4 and \
                                name.casefold() in self.record.prompt.casefold():
                            final = now.get(name, value)
                            yield name, column, final, [v for v in values
                                                        if v not in (value, final)]
        finally:
            db.close()
            after.close()

    def _false_state(self) -> str | None:
        for name, _column, value, others in self._state_rows():
            if others and value is not None:
                return f"{name} is {str(sorted(others)[0]).replace('_', ' ')}"
        return None

    def _true_fact(self) -> str | None:
        for name, _column, value, _ in self._state_rows():
            if value is not None:
                return f"{name} is {str(value).replace('_', ' ')}"
        return None


def _fold(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number_text(Decimal(str(value)))
    return str(value).casefold()


def _listing_args(spec, lookup_args: dict[str, Any]):
    """Argument sets a listing can take from what the lookup was given: none, then the lookup's
    own arguments that the listing also accepts (its filters), never its paging."""
    props = spec.input_schema.get("properties", {})
    required = set(spec.input_schema.get("required", ()))
    shared = {k: v for k, v in lookup_args.items() if k in props and k not in ("limit",
                                                                              "cursor")}
    if not required:
        yield {}
    if shared and required <= set(shared):
        yield shared


def _plausible(schema: dict[str, Any]) -> Any:
    """A value for a field nobody asked to set, unlike its default."""
    default = schema.get("default")
    if "enum" in schema:
        options = [v for v in schema["enum"] if v != default and v is not None]
        return options[-1] if options else None
    kind = schema.get("type")
    if kind == "boolean":
        return not bool(default)
    if kind == "integer":
        return max(int(schema.get("minimum", 1)), 1) + 2
    if kind == "number":
        return float(max(schema.get("minimum", 1), 1)) + 2.5
    if kind == "string" and not schema.get("pattern"):
        if schema.get("format") == "date":
            return "2026-04-01"
        if schema.get("format") == "date-time":
            return "2026-04-01T10:00:00Z"
        if schema.get("format"):
            return None
        return "Added on my own initiative"
    return None


_MOMENT = re.compile(r"^(\d{4}-\d{2}-\d{2})([T ])(\d{2}):(\d{2})(.*)$")


def shifted(value: Any, rng, column: str = "") -> Any:
    """The value slightly off, as an agent gets it wrong: a time twelve hours out (01:45 for
    13:45), a date a year early or a day late, a number one off, a name in other case."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value + 1.0, 2)
    if not isinstance(value, str):
        return None
    moment = _MOMENT.match(value)
    if moment:
        day, sep, hour, minute, rest = moment.groups()
        at = dt.datetime.fromisoformat(f"{day}T{hour}:{minute}") + dt.timedelta(hours=12)
        return f"{at:%Y-%m-%d}{sep}{at:%H}:{at:%M}{rest}"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        day = dt.date.fromisoformat(value)
        if rng.random() < 0.5:
            return (day + dt.timedelta(days=1)).isoformat()
        return day.replace(year=day.year - 1).isoformat() if (day.month, day.day) != (2, 29) \
            else (day - dt.timedelta(days=365)).isoformat()
    if kind_of(column, value) == "text" and re.search(r"[A-Za-z]", value):
        lower = value.lower()
        return lower if lower != value else value.title() if value.title() != value \
            else value.upper()
    return None


def other_case(value: str) -> str:
    """A case-blind value in other case (``#9467bd`` -> ``#9467BD``)."""
    upper = value.upper()
    return upper if upper != value else value.lower()


def _slips(code: str):
    """Codes one slip away, their prefix kept (``pax_``): two neighbours swapped (``C4UU26`` ->
    ``C4UU62``), then one character changed."""
    cut = max(code.rfind("_"), code.rfind("-")) + 1
    for slip in _body_slips(code[cut:]):
        yield code[:cut] + slip


def _body_slips(code: str):
    chars = list(code)
    for i in range(len(chars) - 1, 0, -1):
        if chars[i] != chars[i - 1] and chars[i].isalnum() and chars[i - 1].isalnum():
            swapped = chars[:]
            swapped[i], swapped[i - 1] = swapped[i - 1], swapped[i]
            yield "".join(swapped)
    for i in range(len(chars) - 1, -1, -1):
        if chars[i].isdigit():
            yield code[:i] + str((int(chars[i]) + 7) % 10) + code[i + 1:]
        elif chars[i].isalpha():
            letter = chr((ord(chars[i].upper()) - 65 + 11) % 26 + 65)
            yield code[:i] + (letter if chars[i].isupper() else letter.lower()) + code[i + 1:]

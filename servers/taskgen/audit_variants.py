"""The audit's mutations of a reference solution: equivalent solutions that must pass and near
misses that must fail, built from the task's own calls, answer and tools.

Each generator yields ``(calls, answer, detail)``; one that cannot apply to a task yields
nothing. :mod:`.audit_realistic` adds the mistakes and equivalents an agent really makes.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any

from agentworld.servers import Environment, Session

from .answers import answer_matches, render_answer
from .graph import ToolGraph
from .record import TaskRecord
from .specified import scalars
from .walk import Binder

if TYPE_CHECKING:
    from .audit import Played

__all__ = ["Variants", "id_args", "PAGING"]

PAGING = ("limit", "cursor")


def id_args(args: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if (k == "id" or k.endswith(("_id", "pnr", "number")))
            and isinstance(v, str | int)}


class Variants:
    """The variants of one task; each method yields (calls, answer, detail)."""

    def __init__(self, env: Environment, record: TaskRecord, reference: Played,
                 rng: random.Random, graph: ToolGraph) -> None:
        """``reference`` is the reference solution as played (its steps and outcome).""" 
        self.env, self.record, self.ref, self.rng, self.graph = env, record, reference, rng, graph
        self.calls = [[n, dict(a)] for n, a in record.reference_calls]
        self.answer = record.reference_answer
        self.specs = [c["spec"] for c in record.checks if c.get("kind") == "answer"]
        self.kinds = [env.tools.get(n).kind if n in env.tools else "query" for n, _ in self.calls]
        self.mutations = [i for i, k in enumerate(self.kinds) if k == "mutation"]

    # -- equivalent solutions --------------------------------------------------------------

    def reordered(self):
        outputs = [scalars(s.output, set(), str) for s in self.ref.steps]
        for i in range(len(self.calls) - 1):
            a, b = self.calls[i], self.calls[i + 1]
            if self.kinds[i] != self.kinds[i + 1] or a[0] == b[0] and self.kinds[i] == "query":
                continue
            used = scalars(b[1], set(), str)
            if used & outputs[i] or set(map(str, id_args(a[1]).values())) & used:
                continue
            calls = self.calls[:i] + [b, a] + self.calls[i + 2:]
            yield calls, self.answer, f"calls {i + 1} and {i + 2} swapped"

    def extra_reads(self):
        session = Session(self.env, seed=self.record.session_seed)
        try:
            binder = Binder(session, self.rng)
            queries = [n for n, node in self.graph.nodes.items() if node.kind == "query"]
            extra = []
            for name in self.rng.sample(queries, min(len(queries), 6)):
                bound = binder.bind(self.graph.nodes[name], [])
                if bound is not None:
                    extra.append([name, bound[0]])
                if len(extra) == 2:
                    break
        finally:
            session.close()
        if extra:
            calls = list(self.calls)
            for call in extra:
                calls.insert(self.rng.randint(0, len(calls)), call)
            yield calls, self.answer, "read-only calls inserted: " + ", ".join(c[0] for c in extra)

    def refused_first(self):
        for i in self.mutations[:2]:
            name, args = self.calls[i]
            broken = _broken(self.env, name, args)
            if broken is not None:
                calls = self.calls[:i] + [[name, broken]] + self.calls[i:]
                yield calls, self.answer, f"a refused {name} first"

    def paging(self):
        listed = [s for s, (n, a) in zip(self.ref.steps, self.calls, strict=False)
                  if "limit" in a and isinstance(s.output, dict) and "next_cursor" in s.output]
        if listed:
            yield self.calls, self.answer, "pager:3"

    def answer_phrasing(self):
        if len(self.specs) != 1:
            return
        for style in range(1, 5):
            yield self.calls, render_answer(self.specs[0], style), f"answer style {style}"

    # -- near misses -----------------------------------------------------------------------

    def argument_changed(self):
        for i in self.mutations:
            name, args = self.calls[i]
            props = self.env.tools.get(name).input_schema.get("properties", {})
            for key, value in args.items():
                if key in id_args(args) or key in PAGING:
                    continue
                other = _other_value(props.get(key, {}), value, self.rng)
                if other is not None:
                    calls = [list(c) for c in self.calls]
                    calls[i] = [name, {**args, key: other}]
                    yield calls, self.answer, f"{name}.{key} = {other!r}"
                    break

    def target_missed(self):
        if len(self.mutations) >= 2:
            i = self.rng.choice(self.mutations)
            yield [c for j, c in enumerate(self.calls) if j != i], self.answer, \
                f"call {i + 1} ({self.calls[i][0]}) left out"

    def extra_target(self):
        for call in self._retargeted():
            yield self.calls + [call], self.answer, f"also {call[0]} {call[1]}"
            return

    def wrong_entity(self):
        for i in self.mutations:
            for call in self._retargeted(only=i):
                calls = [list(c) for c in self.calls]
                calls[i] = call
                yield calls, self.answer, f"{call[0]} on {call[1]}"
                return

    def collateral_write(self):
        session = Session(self.env, seed=self.record.session_seed)
        try:
            for name, args in self.calls:
                session.call(name, args)
            binder = Binder(session, self.rng)
            used = {n for n, _ in self.calls}
            names = [n for n, node in self.graph.nodes.items()
                     if node.kind == "mutation" and n not in used]
            self.rng.shuffle(names)
            for name in names[:12]:
                bound = binder.bind(self.graph.nodes[name], [])
                if bound is None:
                    continue
                if session.call(name, bound[0]).ok:
                    yield self.calls + [[name, bound[0]]], self.answer, f"{name} {bound[0]}"
                    return
        finally:
            session.close()

    def guessed_answer(self):
        if self.specs and not self.mutations:
            yield [], self.answer, "the answer without any lookup"

    def several_candidates(self):
        if len(self.specs) == 1:
            rival = self._rival(self.specs[0], several=True)
            if rival is not None:
                spec = self.specs[0]
                first = render_answer(spec, 0)
                yield self.calls, f"It could be {first} or {rival}.", f"{first} or {rival}"

    def off_by_one(self):
        if len(self.specs) == 1:
            rival = self._rival(self.specs[0])
            if rival is not None:
                yield self.calls, rival, f"{rival} instead"

    def other_option(self):
        for i in self.mutations:
            name, args = self.calls[i]
            props = self.env.tools.get(name).input_schema.get("properties", {})
            for key, value in args.items():
                schema = props.get(key, {})
                if "enum" in schema and isinstance(value, str):
                    options = [v for v in schema["enum"] if v not in (value, None)]
                    if options:
                        other = self.rng.choice(options)
                        calls = [list(c) for c in self.calls]
                        calls[i] = [name, {**args, key: other}]
                        yield calls, self.answer, f"{name}.{key} = {other!r}"
                        return
                if isinstance(value, dict):
                    nested = schema.get("properties", {})
                    for sub, sub_value in value.items():
                        enum = nested.get(sub, {}).get("enum")
                        if enum and sub_value in enum and len(enum) > 1:
                            other = self.rng.choice([v for v in enum if v != sub_value])
                            calls = [list(c) for c in self.calls]
                            calls[i] = [name, {**args, key: {**value, sub: other}}]
                            yield calls, self.answer, f"{name}.{key}.{sub} = {other!r}"
                            return

    # -- helpers ---------------------------------------------------------------------------

    def _domain_pool(self, spec: dict[str, Any]) -> list[str]:
        pool = [str(v) for v in spec.get("alternatives", ())]
        domain = spec.get("domain")
        if domain:
            db = self.env.template.clone()
            try:
                pool += [str(r[0]) for r in db.execute(
                    f'SELECT DISTINCT "{domain["column"]}" FROM "{domain["table"]}" LIMIT 50')]
            finally:
                db.close()
        return pool

    def _retargeted(self, only: int | None = None):
        """Calls of a reference mutation aimed at another row that the tool accepts."""
        targets = self.mutations if only is None else [only]
        used = set().union(*[set(map(str, id_args(a).values())) for _, a in self.calls]) \
            if self.calls else set()
        session = Session(self.env, seed=self.record.session_seed)
        try:
            binder = Binder(session, self.rng)
            for i in targets:
                name, args = self.calls[i]
                ids = id_args(args)
                if not ids:
                    continue
                key = next(iter(ids))
                node = self.graph.nodes.get(name)
                for _ in range(8):
                    found = binder._from_db(node, key) if node else None
                    if found is None or str(found[0]) in used:
                        continue
                    call = [name, {**args, key: found[0]}]
                    probe = Session(self.env, seed=self.record.session_seed)
                    try:
                        for n, a in self.calls[:i]:
                            probe.call(n, a)
                        if probe.call(*call).ok:
                            yield call
                            break
                    finally:
                        probe.close()
        finally:
            session.close()

    def inert_reads(self) -> list[str]:
        """Reads of the reference solution that ignore the record they name: asked about
        another record, they reply the same. A request that follows such a reply ("the schedule
        of that workflow") points at a record it never named."""
        out = []
        reads = [i for i, k in enumerate(self.kinds) if k == "query" and id_args(self.calls[i][1])]
        for i in reads[:4]:
            name, args = self.calls[i]
            reply = self.ref.steps[i].output if i < len(self.ref.steps) else None
            if not reply or "error" in reply:
                continue
            session = Session(self.env, seed=self.record.session_seed)
            try:
                for n, a in self.calls[:i]:
                    session.call(n, a)
                binder = Binder(session, self.rng)
                node = self.graph.nodes.get(name)
                key = next(iter(id_args(args)))
                found = binder._from_db(node, key) if node else None
                if found is None or found[0] == args[key]:
                    continue
                other = session.call(name, {**args, key: found[0]})
                if other.ok and other.data == reply:
                    out.append(f"{name}({key}) replies the same for {found[0]!r}")
            finally:
                session.close()
        return out

    def _rival(self, spec: dict[str, Any], several: bool = False) -> str | None:
        """A wrong value of the spec's type: a neighbour, another name, or (``several``, for a
        list) the list with one more plausible item."""
        kind, value = spec["type"], spec["value"]
        if kind == "list" and several:
            items = [str(v) for v in value]
            if all(isinstance(v, int) for v in value):
                extra = str(max(value) + 1)
            else:
                pool = self._domain_pool(spec)
                rest = [p for p in pool if p.casefold() not in {i.casefold() for i in items}]
                if not rest:
                    return None
                extra = self.rng.choice(sorted(rest))
            return ", ".join(items + [extra])
        if kind in ("number", "money"):
            return render_answer({**spec, "value": float(value) + 1 if kind == "money"
                                  else int(value) + 1}, 0)
        if kind == "date":
            import datetime as dt

            day = dt.date.fromisoformat(str(value)[:10]) + dt.timedelta(days=1)
            return day.isoformat()
        if kind == "list":
            items = list(value)
            return ", ".join(map(str, items[:-1])) if len(items) > 1 else None
        pool = self._domain_pool(spec)
        if kind == "id":
            text = str(value)
            pool.append(text[:-1] + ("1" if text[-1] != "1" else "2"))
        pool = [p for p in pool if p.casefold() != str(value).casefold()
                and not answer_matches(spec, p)]
        return self.rng.choice(sorted(pool)) if pool else None


def _other_value(schema: dict[str, Any], value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if "enum" in schema:
        options = [v for v in schema["enum"] if v != value and v is not None]
        return rng.choice(options) if options else None
    if isinstance(value, int):
        top = schema.get("maximum")
        return value + 1 if top is None or value + 1 <= top else value - 1
    if isinstance(value, float):
        return round(value + 1.0, 2)
    if isinstance(value, str):
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            import datetime as dt

            return (dt.date.fromisoformat(value) + dt.timedelta(days=1)).isoformat()
        if schema.get("pattern") or schema.get("format"):
            return None
        return "Something else entirely"
    return None


def _broken(env: Environment, name: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """The call with one reference to a row that does not exist (refused as NOT_FOUND)."""
    ids = id_args(args)
    if ids:
        key = next(iter(ids))
        return {**args, key: "zz_missing_000"}
    spec = env.tools.get(name)
    required = spec.input_schema.get("required", []) if spec else []
    if required:
        return {k: v for k, v in args.items() if k != required[0]}
    return None

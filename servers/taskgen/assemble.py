"""From a request and its reference solution to a task with an exact rubric.

Every kind of task (programmatic shapes, graph walks, the hand-written reference tasks) is
assembled here, so every verifier keeps the same contract:

* the state checks are the reference solution's effect (``effects.py``), with created rows matched
  by content and a whole-database guard;
* an answer is one typed value (``answers.py``); values the prompt mentions are set aside, and a
  task whose prompt contains its own answer is refused;
* an answer needs its evidence: some successful call returned its value or a record it comes
  from, whichever tool made it (``read``);
* the reply is read on every task: it must claim nothing the final state contradicts
  (``reply``);
* options the request states (a payment method, a channel) are checked on the call that takes
  them only where the state cannot show them;
* the draft passes the prompt lint (``prompt_lint.py``): a required argument left unspecified, a
  count of something it does not name, or impossible data (an end before its start) rejects it.
"""

from __future__ import annotations

import json
from typing import Any

from agentworld.servers import Environment, Session

from .answers import ANSWER_TYPES, answer_matches, asked_words, counted_noun, mentions
from .checks import Check
from .effects import bookkeeping_of, effect_checks
from .prompt_lint import lint_draft
from .record import TaskRecord
from .values import leaves

__all__ = ["assemble", "TaskRejected", "answer_check", "reply_check", "read_only_check"]

# Witness records an answer's evidence may show; more would say nothing more.
_MAX_WITNESSES = 200


class TaskRejected(ValueError):
    """The draft cannot become a trustworthy task; the message says why."""


def answer_check(spec: dict[str, Any], prompt: str, env: Environment, *, points: int = 2,
                 name: str = "answer") -> Check:
    """The check of one typed answer, with the values the prompt mentions set aside. Raises
    TaskRejected when the prompt already contains the answer."""
    if spec.get("type") not in ANSWER_TYPES:
        raise TaskRejected(f"unknown answer type {spec.get('type')!r}")
    db = env.template.clone()
    try:
        # The values the prompt mentions are set aside when the reply is read; the expected
        # value among them means the prompt gives the answer away.
        spec = {**spec, "ignore": [str(v) for v in mentions(spec, prompt, db=db)]}
        counted = counted_noun(prompt) if spec["type"] == "number" else []
        if counted:
            spec["counted"] = counted
        asked = asked_words(prompt) if spec["type"] == "money" else []
        if asked:
            spec["asked"] = asked
        if answer_matches(spec, prompt, db=db):
            raise TaskRejected("the prompt contains its own answer")
    finally:
        db.close()
    return {"kind": "answer", "spec": spec, "points": points, "name": name}


def _keys_of(env: Environment) -> set[str]:
    """Every single-column key of the template: the records a reply can show."""
    db = env.template.clone()
    try:
        out: set[str] = set()
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        for table in tables:
            keys = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if r[5]]
            if len(keys) == 1:
                out |= {str(r[0]) for r in db.execute(f'SELECT "{keys[0]}" FROM "{table}"')}
        return out
    finally:
        db.close()


def _evidence(env: Environment, calls: list[list[Any]], specs: list[dict[str, Any]],
              seed: int) -> Check | None:
    """The ``read`` check of an answer: some successful call returned the answer's value or a
    record the reference solution's reads returned (any tool will do: a listing as well as a
    lookup). None when the reference reads nothing."""
    reads = [i for i, (name, _) in enumerate(calls)
             if name in env.tools.names() and env.tools.get(name).kind == "query"]
    if not reads:
        return None
    keys = _keys_of(env)
    session = Session(env, seed=seed)
    witnesses: list[str] = []
    try:
        for i, (name, args) in enumerate(calls):
            result = session.call(name, args)
            if i in reads and result.ok:
                # A bare number (row 4) would turn up in any reply: names and codes only.
                witnesses += [str(v) for v in leaves(result.data) if isinstance(v, str)
                              and v in keys and len(v) >= 3 and not v.lstrip("-").isdigit()]
    finally:
        session.close()
    witnesses = list(dict.fromkeys(witnesses))[:_MAX_WITNESSES]
    return {"kind": "read", "specs": specs, "witnesses": witnesses, "points": 1,
            "name": "read the records the answer comes from"}


def reply_check(env: Environment, prompt: str, specs: list[dict[str, Any]] = ()) -> Check:
    """The check that the reply claims nothing the final state contradicts (``specs``: the
    answers it may state)."""
    tables, columns = bookkeeping_of(env)
    expected = [v for s in specs for v in (s["value"] if isinstance(s["value"], list)
                                           else [s["value"]])]
    counted = counted_noun(prompt)
    return {"kind": "reply", "prompt": prompt, "expected": expected, "ignore_tables": tables,
            "ignore_columns": columns, "template": env.template.hash,
            "tools": sorted(env.tools.names()), "counted": counted, "points": 1,
            "name": "the reply claims nothing false"}


def read_only_check(env: Environment) -> Check:
    """A question asks for no change: no write of the service may succeed, even one undone
    later (the state alone cannot show a write that was reverted)."""
    writes = sorted(t.name for t in env.tools if t.kind == "mutation")
    return {"kind": "read_only", "tools": writes, "points": 1,
            "name": "nothing was written"}


def _option(option: dict[str, Any], checks: list[Check]) -> Check | None:
    """A stated option the state cannot show (it is checked on the call that takes it); None
    when the effect checks already hold its values."""
    shown = json.dumps([c.get("expect", c.get("values")) for c in checks], default=str)
    hidden = {k: v for k, v in option["arguments"].items()
              if json.dumps(v, default=str) not in shown}
    if not hidden:
        return None
    words = ", ".join(f"{k}={v}" for k, v in hidden.items())
    return {"kind": "called", "tool": option["tool"], "arguments": hidden,
            "points": 1, "name": f"{option['tool']} with {words}"}


def assemble(env: Environment, *, id: str, kind: str, prompt: str, calls: list[list[Any]],
             answer: dict[str, Any] | list[dict[str, Any]] | None = None,
             options: list[dict[str, Any]] = (), extra: list[Check] = (),
             reference_answer: str | None = None, seed: int = 0, max_steps: int | None = None,
             difficulty: str | None = None, split: str = "train",
             metadata: dict[str, Any] | None = None) -> TaskRecord:
    """A task record whose rubric is exact. Raises TaskRejected (or ReferenceFailed, a
    ValueError) when the draft is not a trustworthy task."""
    finding = lint_draft(env, prompt, calls, seed=seed)
    if finding:
        raise TaskRejected(f"prompt lint: {finding}")
    checks = effect_checks(env, calls, seed=seed, prompt=prompt)
    specs = [answer] if isinstance(answer, dict) else list(answer or [])
    for i, spec in enumerate(specs):
        checks.append(answer_check(spec, prompt, env, name="answer" if i == 0
                                   else f"answer ({spec['type']})"))
    if specs:
        evidence = _evidence(env, calls, specs, seed)
        if evidence is None:
            raise TaskRejected("an answer task needs a lookup in its reference solution")
        checks.append(evidence)
    checks += [c for c in (_option(o, checks) for o in options) if c is not None]
    checks += list(extra)
    if not any(not c.get("guard") for c in checks):
        raise TaskRejected("the request changes nothing and asks nothing")
    if specs and not any(c["kind"] in ("row_values", "row_added", "row_removed")
                         for c in checks):
        checks.append(read_only_check(env))
    checks.append(reply_check(env, prompt, specs))
    if reference_answer is None and specs:
        from .answers import render_answer

        reference_answer = " ".join(render_answer(s) for s in specs)
    n = len(calls)
    return TaskRecord(
        id=id, env_id=env.id, kind=kind, prompt=prompt, checks=checks,
        reference_calls=[[name, args] for name, args in calls],
        reference_answer=reference_answer, session_seed=seed,
        max_steps=max_steps or max(2 * n + 6, 15),
        difficulty=difficulty or ("hard" if n >= 10 else "medium" if n >= 4 else "easy"),
        split=split, metadata=dict(metadata or {}))

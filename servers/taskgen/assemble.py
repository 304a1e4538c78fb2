"""From a request and its reference solution to a task with an exact rubric.

Every kind of task (programmatic shapes, graph walks, the hand-written reference tasks) is
assembled here, so every verifier keeps the same contract:

* the state checks are the reference solution's effect (``effects.py``), with created rows matched
  by content and a whole-database guard;
* an answer is one typed value (``answers.py``); values the prompt mentions are set aside, and a
  task whose prompt contains its own answer is refused;
* an answer needs its lookup: a successful call of the read that produced it;
* options the request states (a payment method, a channel, a fare) are checked on the call that
  takes them.
"""

from __future__ import annotations

from typing import Any

from agentworld.servers import Environment

from .answers import ANSWER_TYPES, answer_matches, mentions
from .checks import Check
from .effects import effect_checks
from .record import TaskRecord

__all__ = ["assemble", "TaskRejected", "answer_check"]

_PAGING = ("limit", "cursor", "offset", "page", "page_size", "per_page")


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
        if answer_matches(spec, prompt, db=db):
            raise TaskRejected("the prompt contains its own answer")
    finally:
        db.close()
    return {"kind": "answer", "spec": spec, "points": points, "name": name}


def _lookup(env: Environment, calls: list[list[Any]]) -> Check | None:
    reads = [(name, args) for name, args in calls
             if name in env.tools.names() and env.tools.get(name).kind == "query"]
    if not reads:
        return None
    name, args = reads[-1]
    key = {k: v for k, v in args.items() if k not in _PAGING}
    return {"kind": "called", "tool": name, "arguments": key, "points": 1,
            "name": f"looked it up with {name}"}


def _option(option: dict[str, Any]) -> Check:
    shown = ", ".join(f"{k}={v}" for k, v in option["arguments"].items())
    return {"kind": "called", "tool": option["tool"], "arguments": option["arguments"],
            "points": 1, "name": f"{option['tool']} with {shown}"}


def assemble(env: Environment, *, id: str, kind: str, prompt: str, calls: list[list[Any]],
             answer: dict[str, Any] | list[dict[str, Any]] | None = None,
             options: list[dict[str, Any]] = (), extra: list[Check] = (),
             reference_answer: str | None = None, seed: int = 0, max_steps: int | None = None,
             difficulty: str | None = None, split: str = "train",
             metadata: dict[str, Any] | None = None) -> TaskRecord:
    """A task record whose rubric is exact. Raises TaskRejected (or ReferenceFailed, a
    ValueError) when the draft is not a trustworthy task."""
    checks = effect_checks(env, calls, seed=seed)
    specs = [answer] if isinstance(answer, dict) else list(answer or [])
    for i, spec in enumerate(specs):
        checks.append(answer_check(spec, prompt, env, name="answer" if i == 0
                                   else f"answer ({spec['type']})"))
    if specs:
        lookup = _lookup(env, calls)
        if lookup is None:
            raise TaskRejected("an answer task needs a lookup in its reference solution")
        checks.append(lookup)
    checks += [_option(o) for o in options]
    checks += list(extra)
    if not any(not c.get("guard") for c in checks):
        raise TaskRejected("the request changes nothing and asks nothing")
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

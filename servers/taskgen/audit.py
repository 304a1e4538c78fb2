"""The verifier audit: mutation testing of every task's rubric.

The reference solution is replayed through the real runtime, then changed in ways that must not
matter (equivalent solutions, which must pass) and in ways that must (near misses, which must
fail). A variant that cannot be built for a task (no paging to change, no second target) is not
applicable and is not counted. Two static checks come with it: no prompt contains its answer, and
every argument of the reference solution is specified by the prompt or read from an earlier
reply (``unspecified_steps``).
"""

from __future__ import annotations

import hashlib
import random
import re
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers import Environment, Session
from agentworld.servers.tasks import Step, Verdict, VerifierInput

from .answers import answer_matches
from .audit_realistic import AGENT_EQUIVALENT, AGENT_NEAR_MISS, AgentVariants
from .checks import snapshot, table_digest
from .effects import bookkeeping_of
from .graph import ToolGraph
from .record import TaskRecord
from .specified import unspecified_steps

__all__ = ["audit_task", "TaskAudit", "VariantResult", "EQUIVALENT", "NEAR_MISS",
           "summarize", "play"]

EQUIVALENT = ("reordered", "extra_reads", "refused_first", "paging", "answer_phrasing",
              *AGENT_EQUIVALENT)
NEAR_MISS = ("argument_changed", "target_missed", "extra_target", "collateral_write",
             "guessed_answer", "several_candidates", "off_by_one", "wrong_entity",
             "other_option", *AGENT_NEAR_MISS)
# Equivalents that rewrite calls: one the service refuses (a case it does not accept, an order
# it does not allow) is no solution at all, and is not counted.
_REWRITING = frozenset({"reordered", "independent_reordered", "default_presentation",
                        "answer_from_listing", "case_variant"})
# Near misses that change only the reply or the order of steps: they count even though the
# database ends the same (timestamps aside).
_REPLY_ONLY = frozenset({"guessed_answer", "several_candidates", "off_by_one", "false_claim",
                         "hedged_answer", "wrong_side_fact", "order_swapped"})
_PAGING = ("limit", "cursor")
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


@dataclass(frozen=True)
class VariantResult:
    kind: str
    family: str                 # "equivalent" (must pass) or "near_miss" (must fail)
    passed: bool                # what the verifier said
    detail: str = ""

    @property
    def wrong(self) -> bool:
        return self.passed != (self.family == "equivalent")


@dataclass
class TaskAudit:
    task_id: str
    env_id: str
    reference_passed: bool
    results: list[VariantResult] = field(default_factory=list)
    answer_in_prompt: bool = False
    unspecified: list[str] = field(default_factory=list)
    redundant: list[str] = field(default_factory=list)   # writes that change nothing
    # Records a write names that it then ignores: aimed at another record, it does the same.
    inert: list[str] = field(default_factory=list)

    @property
    def false_negatives(self) -> list[VariantResult]:
        return [r for r in self.results if r.family == "equivalent" and not r.passed]

    @property
    def false_positives(self) -> list[VariantResult]:
        return [r for r in self.results if r.family == "near_miss" and r.passed]

    @property
    def ok(self) -> bool:
        return (self.reference_passed and not self.false_negatives and not self.false_positives
                and not self.answer_in_prompt and not self.unspecified and not self.redundant
                and not self.inert)

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "env_id": self.env_id, "ok": self.ok,
                "reference_passed": self.reference_passed,
                "answer_in_prompt": self.answer_in_prompt, "unspecified": self.unspecified,
                "redundant": self.redundant, "inert": self.inert,
                "variants": len(self.results),
                "false_negatives": [[r.kind, r.detail] for r in self.false_negatives],
                "false_positives": [[r.kind, r.detail] for r in self.false_positives]}


@dataclass
class Played:
    verdict: Verdict
    steps: list[Step]
    hash: str                   # the database's outcome, bookkeeping left out
    refused: int


_TEMPLATES: dict[tuple[str, str], dict[str, tuple[int, set[str]]]] = {}


def _template_tables(env: Environment) -> dict[str, tuple[int, set[str]]]:
    """Each template table's fingerprint and row keys (cached: a template never changes)."""
    cache_key = (env.id, env.template.hash)
    if cache_key not in _TEMPLATES:
        db = env.template.clone()
        try:
            tables = [r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                "'sqlite_%'")]
            _TEMPLATES[cache_key] = {t: (table_digest(db, t), set(snapshot(db, t)[1]))
                                     for t in tables}
        finally:
            db.close()
    return _TEMPLATES[cache_key]


def _outcome(env: Environment, db) -> str:
    """A digest of what a run left behind, as a verifier sees it: bookkeeping every write
    touches is left out (a write that only bumps ``updated_at`` changed nothing), and so are
    timestamps and the ids of rows the run created (created rows count by their content)."""
    skip_tables, skip_columns = bookkeeping_of(env)
    template = _template_tables(env)
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]
    texts: dict[str, str] = {}
    changed = {}
    for table in tables:
        if table in skip_tables:
            continue
        if table in template and table_digest(db, table) == template[table][0]:
            texts[table] = "as-template"
        else:
            changed[table] = snapshot(db, table)
    known = {t: template.get(t, (0, set()))[1] for t in changed}
    new_ids = {row[keys[0]] for t, (keys, rows) in changed.items() if len(keys) == 1
               for k, row in rows.items() if k not in known[t]}

    def plain(value: Any) -> Any:
        if isinstance(value, str) and (value in new_ids or _TIMESTAMP.match(value)):
            return "<generated>"
        return value

    for table, (_, rows) in changed.items():
        ignored = {c.split(".", 1)[1] for c in skip_columns if c.startswith(("*.", f"{table}."))}
        old, created = [], []
        for key, row in rows.items():
            content = sorted((c, plain(v)) for c, v in row.items() if c not in ignored)
            (old if key in known[table] else created).append((key, content))
        text = repr((sorted(old), sorted(repr(c) for _, c in created)))
        if not created and table in template and text == _canonical(env, table, ignored):
            text = "as-template"  # changed in bookkeeping or timestamps only
        texts[table] = text
    digest = hashlib.blake2b(digest_size=16)
    for table in sorted(texts):
        digest.update(f"{table}:{texts[table]}\n".encode())
    return digest.hexdigest()


_CANONICAL: dict[tuple[str, str, str], str] = {}


def _canonical(env: Environment, table: str, ignored: set[str]) -> str:
    """The template's rows of ``table`` written as ``_outcome`` writes a changed table."""
    key = (env.id, env.template.hash, table)
    if key not in _CANONICAL:
        db = env.template.clone()
        try:
            _, rows = snapshot(db, table)
        finally:
            db.close()
        old = [(k, sorted((c, "<generated>" if isinstance(v, str) and _TIMESTAMP.match(v)
                           else v) for c, v in row.items() if c not in ignored))
               for k, row in rows.items()]
        _CANONICAL[key] = repr((sorted(old), []))
    return _CANONICAL[key]


Call = list[Any]


def _pairs(ref: Any, new: Any, out: dict[str, str]) -> None:
    """Generated values that differ between a reference reply and the variant's reply."""
    if isinstance(ref, dict) and isinstance(new, dict):
        for key, value in ref.items():
            _pairs(value, new.get(key), out)
    elif isinstance(ref, list) and isinstance(new, list):
        for a, b in zip(ref, new, strict=False):
            _pairs(a, b, out)
    elif isinstance(ref, str) and isinstance(new, str) and ref != new \
            and not _TIMESTAMP.match(ref):
        out[ref] = new


def _substitute(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _substitute(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, mapping) for v in value]
    return mapping.get(value, value) if isinstance(value, str) else value


def play(env: Environment, record: TaskRecord, calls: list[Call], answer: str | None, *,
         pager: int | None = None, reference: list[Step] | None = None) -> Played:
    """Run ``calls`` in a fresh session like an agent would and verify the result. ``pager``
    re-reads every paged listing with that page size, following next_cursor. With the
    ``reference`` replies, a value the reference run generated (an id, a code) is replaced in
    later calls by the one this run generated, as an agent reading its own replies would."""
    task = record.to_task()
    session = Session(env, seed=record.session_seed)
    steps: list[Step] = []
    mapping: dict[str, str] = {}
    pending = list(enumerate(record.reference_calls)) if reference else []

    def call(name: str, args: dict[str, Any]):
        actual = _substitute(args, mapping) if mapping else args
        result = session.call(name, actual)
        steps.append(Step(name, actual, result.ok, result.payload()))
        match = next((i for i, (j, c) in enumerate(pending) if c[0] == name and c[1] == args),
                     None)
        if match is not None and result.ok:
            j, _ = pending.pop(match)
            _pairs(reference[j].output, result.data, mapping)
        return result

    try:
        for name, args in calls:
            if not (pager and "limit" in args):
                call(name, args)
                continue
            if args.get("cursor"):
                continue  # the re-paged listing below already read every page
            cursor = None
            for _ in range(500):
                page = {**{k: v for k, v in args.items() if k != "cursor"}, "limit": pager}
                if cursor:
                    page["cursor"] = cursor
                result = call(name, page)
                data = result.data if result.ok else None
                cursor = data.get("next_cursor") if isinstance(data, dict) else None
                if not cursor:
                    break
        initial = env.template.clone()
        try:
            verdict = task.verifier(VerifierInput(initial, session.db, answer, tuple(steps)))
        finally:
            initial.close()
        return Played(verdict, steps, _outcome(env, session.db), sum(not s.ok for s in steps))
    finally:
        session.close()


# ---- running the audit ---------------------------------------------------------------------

def audit_task(env: Environment, record: TaskRecord, *, graph: ToolGraph | None = None,
               seed: int = 0) -> TaskAudit:
    """Every applicable variant of one task, played and verified."""
    graph = graph or ToolGraph.of(env.tools)
    rng = random.Random(zlib.crc32(f"{record.id}:{seed}".encode()))
    reference = play(env, record, record.reference_calls, record.reference_answer)
    audit = TaskAudit(record.id, env.id, reference.verdict.passed)
    db = env.template.clone()
    try:
        audit.answer_in_prompt = any(
            answer_matches(c["spec"], record.prompt, db=db)
            for c in record.checks if c.get("kind") == "answer")
    finally:
        db.close()
    audit.unspecified = unspecified_steps(env, record, reference.steps)
    if not reference.verdict.passed:
        return audit
    variants = AgentVariants(env, record, reference, rng, graph)
    audit.inert += variants.inert_reads()
    for i in variants.mutations[:8]:
        # A write the outcome does not need ("set the name to the name it has") is a step
        # that asks nothing of the agent.
        without = [c for j, c in enumerate(variants.calls) if j != i]
        if play(env, record, without, record.reference_answer,
                reference=reference.steps).hash == reference.hash:
            audit.redundant.append(f"call {i + 1} ({variants.calls[i][0]})")
    for family, kinds in (("equivalent", EQUIVALENT), ("near_miss", NEAR_MISS)):
        for kind in kinds:
            for calls, answer, detail in getattr(variants, kind)():
                pager = int(detail.split(":")[1]) if detail.startswith("pager:") else None
                played = play(env, record, calls, answer, pager=pager,
                              reference=reference.steps)
                if family == "equivalent" and kind in _REWRITING and \
                        played.refused > reference.refused:
                    continue  # the service refused the rewrite: it is no solution
                if kind == "refused_first" and played.refused <= reference.refused:
                    continue  # the broken call was accepted: it is a write, not a refusal
                if family == "near_miss" and kind not in _REPLY_ONLY and \
                        played.hash == reference.hash:
                    if kind == "wrong_entity":
                        # The write ignores the record it names: no verifier can tell the
                        # right record from the wrong one, so the task asks nothing of it.
                        audit.inert.append(detail)
                    continue  # the change had no lasting effect: not a near miss
                audit.results.append(VariantResult(kind, family, played.verdict.passed, detail))
    return audit


def summarize(audits: list[TaskAudit]) -> dict[str, Any]:
    """Counts per variant kind: how many ran and how many the verifier got wrong."""
    ran, wrong = Counter(), Counter()
    for audit in audits:
        for r in audit.results:
            ran[r.kind] += 1
            wrong[r.kind] += r.wrong
    equivalent = sum(ran[k] for k in EQUIVALENT)
    near = sum(ran[k] for k in NEAR_MISS)
    fn = sum(wrong[k] for k in EQUIVALENT)
    fp = sum(wrong[k] for k in NEAR_MISS)
    return {
        "tasks": len(audits), "tasks_ok": sum(a.ok for a in audits),
        "reference_failed": [a.task_id for a in audits if not a.reference_passed],
        "answer_in_prompt": [a.task_id for a in audits if a.answer_in_prompt],
        "unspecified_step": [a.task_id for a in audits if a.unspecified],
        "redundant_step": [a.task_id for a in audits if a.redundant],
        "inert_argument": [a.task_id for a in audits if a.inert],
        "equivalent": {"variants": equivalent, "false_negatives": fn},
        "near_miss": {"variants": near, "false_positives": fp,
                      "rate": round(fp / near, 4) if near else 0.0},
        "per_kind": {k: {"family": "equivalent" if k in EQUIVALENT else "near_miss",
                         "variants": ran[k], "wrong": wrong[k],
                         "wrong_tasks": sorted({a.task_id for a in audits for r in a.results
                                                if r.kind == k and r.wrong})}
                     for k in EQUIVALENT + NEAR_MISS},
        "false_negative_tasks": {a.task_id: [[r.kind, r.detail] for r in a.false_negatives]
                                 for a in audits if a.false_negatives},
        "false_positive_tasks": {a.task_id: [[r.kind, r.detail] for r in a.false_positives]
                                 for a in audits if a.false_positives},
    }

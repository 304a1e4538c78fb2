"""Run the data audit: on one compiled environment, on a world id, or over many ids in a small
process pool with a progress bar."""

from __future__ import annotations

import sqlite3
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import codes, dates, english, groups, lab, people, values
from .model import Finding, Subject, ToolText, subject_from_db

if TYPE_CHECKING:
    from ..compile import CompiledEnvironment

__all__ = ["RULES", "CHECKS", "audit_subject", "subject_for", "audit_compiled", "audit_env",
           "EnvAudit", "AuditRun", "audit_envs"]

# Rule code -> what it objects to. Every finding carries one of these codes.
RULES = {
    "date_order": "dates out of order within a row",
    "child_before_parent": "a row created before a row it refers to",
    "after_clock": "a date of something done, after the environment's clock",
    "state_date": "a state its dates contradict",
    "same_person": "two roles of one row filled by one person",
    "person_two_roles": "a person who holds two roles the domain keeps apart",
    "membership": "a row joining things of two different groups (a vote in another DAO)",
    "id_prefix": "two tables whose ids share a prefix",
    "out_of_range": "a number outside its declared plausible range",
    "over_capacity": "a parent holding more children than its capacity",
    "specimen_mismatch": "a test on a specimen or tube it cannot be run on",
    "flag_mismatch": "an abnormal flag that disagrees with its value",
    "code_format": "a code that fails its standard's format or check digit",
    "padded_label": "a label padded with a number to be unique, or a placeholder",
    "grammar_article": "'a' before a vowel sound or 'an' before a consonant sound",
    "grammar_plural": "a determiner and an entity noun that disagree in number ('a bookings')",
    "arg_description": "an argument description that only repeats the name",
    "audit_error": "a check that failed to run (a bug in the audit)",
}

CHECKS: tuple[Callable[[Subject], Iterable[Finding]], ...] = (
    dates.date_order, dates.child_before_parent, dates.after_clock, dates.state_date,
    people.same_person, people.person_two_roles, groups.membership, values.id_prefix,
    values.out_of_range, values.over_capacity, lab.specimen_mismatch, lab.flag_mismatch,
    codes.code_format, values.padded_label, english.grammar_article, english.grammar_plural,
    english.arg_description,
)


def audit_subject(subject: Subject) -> list[Finding]:
    """Every check's findings; a check that raises becomes one ``audit_error`` finding."""
    out: list[Finding] = []
    for check in CHECKS:
        try:
            out.extend(check(subject))
        except Exception as exc:  # a bug in one check must not hide the others' findings
            where = traceback.extract_tb(exc.__traceback__)[-1]
            out.append(subject.finding("-", "-", "audit_error",
                                       f"{check.__name__}: {type(exc).__name__}: {exc} "
                                       f"(line {where.lineno})"))
    return out


def _tool_text(spec) -> ToolText:
    props = spec.input_schema.get("properties", {})
    return ToolText(spec.name, spec.description,
                    {name: schema.get("description") for name, schema in props.items()})


def subject_for(compiled: CompiledEnvironment, db: sqlite3.Connection | None = None) -> Subject:
    """The environment's template database (``db``, or built now as the runtime builds it),
    read back with its archetype, clock and tools."""
    from agentworld.servers import Environment

    definition = compiled.definition
    own = db is None
    db = Environment(definition).warm().template.clone() if db is None else db
    try:
        return subject_from_db(compiled.card.id, db, clock=definition.manifest.epoch,
                               archetype=compiled.archetype,
                               tools=[_tool_text(t) for t in definition.tools])
    finally:
        if own:
            db.close()


def audit_compiled(compiled: CompiledEnvironment,
                   db: sqlite3.Connection | None = None) -> list[Finding]:
    return audit_subject(subject_for(compiled, db))


def audit_env(env_id: str) -> list[Finding]:
    """Audit one world environment. Raises KeyError for an unknown id."""
    from ..registry import compiled

    return audit_compiled(compiled(env_id))


@dataclass
class EnvAudit:
    """One environment's result: exact counts per rule, and the first findings of each rule."""

    env_id: str
    counts: dict[str, int]
    findings: list[Finding]


def _audit_one(env_id: str, keep: int) -> EnvAudit:
    try:
        found = audit_env(env_id)
    except Exception as exc:  # a build failure is reported, not raised: the run goes on
        found = [Finding(env_id, "-", "-", "audit_error", f"{type(exc).__name__}: {exc}")]
    counts = Counter(f.rule for f in found)
    kept: list[Finding] = []
    per_rule: Counter[str] = Counter()
    for f in found:
        per_rule[f.rule] += 1
        if per_rule[f.rule] <= keep:
            kept.append(f)
    return EnvAudit(env_id, dict(counts), kept)


def _audit_star(args: tuple[str, int]) -> EnvAudit:
    return _audit_one(*args)


@dataclass
class AuditRun:
    envs: list[EnvAudit] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def counts(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for env in self.envs:
            total.update(env.counts)
        return {rule: total[rule] for rule in RULES if total[rule]}

    @property
    def findings(self) -> list[Finding]:
        return [f for env in self.envs for f in env.findings]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def to_dict(self, limit: int | None = None) -> dict:
        findings = self.findings[:limit] if limit is not None else self.findings
        return {"environments": len(self.envs), "seconds": round(self.seconds, 1),
                "findings": self.total, "counts": self.counts,
                "environments_with_findings": sum(1 for e in self.envs if e.counts),
                "by_environment": {e.env_id: e.counts for e in self.envs if e.counts},
                "first_findings": [f.to_dict() for f in findings]}


def audit_envs(env_ids: Sequence[str], *, workers: int = 2, keep: int = 20,
               progress: bool = True) -> AuditRun:
    """Audit many environments, ``workers`` processes at a time (1: in this process), keeping
    exact counts and the first ``keep`` findings of each rule per environment."""
    from ..progress import Progress

    start = time.perf_counter()
    run = AuditRun()
    bar = Progress(len(env_ids), "data audit", enabled=progress)
    jobs = [(env_id, keep) for env_id in env_ids]
    if workers <= 1:
        for job in jobs:
            run.envs.append(_audit_star(job))
            bar.advance()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(_audit_star, jobs, chunksize=4):
                run.envs.append(result)
                bar.advance()
    run.seconds = time.perf_counter() - start
    return run

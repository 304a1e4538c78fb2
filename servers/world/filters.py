"""The paper's three filters, run on every compiled environment.

(a) *builds and loads*: the schema and seed build a template with intact foreign keys, and every
    tool's schemas are valid (checked when the tools were declared);
(b) *unit tests*: for every tool a success case and a failure case drawn from the seeded data,
    and for every business rule a call that breaks it and is refused with the rule's code,
    leaving the database unchanged;
(c) *execution audit*: every read tool returns data on the seed, every mutating tool persists a
    change, and every tool is callable with valid arguments drawn from the database.

A fourth filter, *data*, runs the data audit (``data_audit/``) on the template: dates, states,
people in roles, ids, ranges, codes, labels and grammar a domain expert would believe. It is
recorded separately (``data``, ``data_findings``): ``passed`` is still the paper's three, and
``passed_with_data`` adds the fourth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentworld.servers import Environment, Session

from .compile import CompiledEnvironment

__all__ = ["FilterReport", "run_filters", "run_data_filter"]


@dataclass
class FilterReport:
    env_id: str
    builds: bool = False
    unit_tests: bool = False
    audit: bool = False
    problems: list[str] = field(default_factory=list)
    tools: int = 0
    rules: int = 0
    rows: int = 0
    data: bool = False
    data_findings: dict[str, int] = field(default_factory=dict)  # rule -> count

    @property
    def passed(self) -> bool:
        return self.builds and self.unit_tests and self.audit

    @property
    def passed_with_data(self) -> bool:
        return self.passed and self.data

    def to_dict(self) -> dict[str, Any]:
        return {"env_id": self.env_id, "builds": self.builds, "unit_tests": self.unit_tests,
                "audit": self.audit, "tools": self.tools, "rules": self.rules,
                "rows": self.rows, "problems": self.problems, "data": self.data,
                "data_findings": self.data_findings}


def _has_data(tool: str, data: dict[str, Any]) -> bool:
    """A read reply with something in it: a non-empty page, or an object with values."""
    total = data.get("total")
    if isinstance(total, int | float) and not isinstance(total, bool):
        return total > 0            # a page; a record may have a "total" of its own
    return any(v not in (None, [], {}, "") for v in data.values())


def _first_success(env: Environment, tool: str, candidates) -> tuple[Session | None, Any]:
    last = None
    for args in candidates:
        session = Session(env, seed=0)
        result = session.call(tool, args)
        if result.ok:
            return session, result
        last = result
        session.close()
    return None, last


def _check_tools(env: Environment, compiled: CompiledEnvironment, db, report) -> tuple[bool, bool]:
    unit_ok = audit_ok = True
    template_hash = env.template.hash
    for spec in env.tools:
        probe = compiled.probes.get(spec.name)
        if probe is None:
            report.problems.append(f"{spec.name}: no probe")
            unit_ok = audit_ok = False
            continue
        session, result = _first_success(env, spec.name, probe.success(db))
        if session is None:
            report.problems.append(f"{spec.name}: no valid call succeeded "
                                   f"({result.error if result else 'no candidates'})")
            unit_ok = audit_ok = False
        else:
            if spec.annotations.read_only and not _has_data(spec.name, result.data):
                report.problems.append(f"{spec.name}: returned no data on the seed")
                audit_ok = False
            if not spec.annotations.read_only and session.hash() == template_hash:
                report.problems.append(f"{spec.name}: succeeded but persisted nothing")
                audit_ok = False
            session.close()
        if not _refuses(env, spec.name, probe.failure(db), probe.failure_code):
            report.problems.append(f"{spec.name}: no failure case gave {probe.failure_code}")
            unit_ok = False
    return unit_ok, audit_ok


def _refuses(env: Environment, tool: str, candidates, code: str) -> bool:
    for args in candidates:
        session = Session(env, seed=0)
        result = session.call(tool, args)
        unchanged = session.hash() == env.template.hash
        session.close()
        if result.code == code and unchanged:
            return True
    return False


def run_filters(compiled: CompiledEnvironment) -> FilterReport:
    report = FilterReport(compiled.card.id)
    try:
        env = Environment(compiled.definition).warm()
    except Exception as exc:  # any build failure is what filter (a) reports
        report.problems.append(f"build failed: {type(exc).__name__}: {exc}")
        return report
    report.builds = True
    report.tools, report.rules = len(env.tools), len(compiled.rules)
    db = env.template.clone()
    try:
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        report.rows = sum(db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables)
        unit_ok, audit_ok = _check_tools(env, compiled, db, report)
        for spec in compiled.rules:
            if not _refuses_rule(env, spec, db):
                report.problems.append(f"rule {spec.rule.id}: no breaking call was refused "
                                       f"with {spec.rule.code}")
                unit_ok = False
    finally:
        db.close()
    report.unit_tests, report.audit = unit_ok, audit_ok
    run_data_filter(compiled, report, env.template.clone())
    return report


def run_data_filter(compiled: CompiledEnvironment, report: FilterReport, db=None) -> None:
    """Filter (d): the data audit on the template (``db``, a clone of it, is closed here; built
    when None); its counts per rule go to the report."""
    from collections import Counter

    from .data_audit import audit_compiled

    try:
        findings = audit_compiled(compiled, db)
    finally:
        if db is not None:
            db.close()
    report.data_findings = dict(Counter(f.rule for f in findings))
    report.data = not report.data_findings


def _refuses_rule(env: Environment, spec, db) -> bool:
    for tool, args in spec.breaker(db):
        if tool not in spec.rule.tools:
            continue
        # A call with unknown or missing argument names is refused by the schema whatever the
        # rule does: it proves nothing. (Range and length rules may rest on the schema.)
        schema = env.tool(tool).input_schema
        if not set(args) <= set(schema.get("properties", {})) or not set(
                schema.get("required", [])) <= set(args):
            continue
        if _refuses(env, tool, [args], spec.rule.code):
            return True
    return False

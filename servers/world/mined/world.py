"""Build the mined world: compile every selected server of the snapshot, filter, keep the best.

A server is a candidate when the miner selected it (it reads and changes business objects) and
it is not a republished copy of another. Each candidate is compiled and run through the
filters; tools that fail are dropped with the filter's reason and the environment is compiled
and filtered again, once. An environment is kept when it passes with at least ``MIN_TOOLS``
tools, its id is free, and no kept environment has the same tool-name set.

The result is ``pools/mined.json`` (what the registry serves) and ``pools/mined_report.json``
(pass rates, kept and dropped tools, drop reasons).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import itertools
import json
import os
import re
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agentworld.servers.world.data import DATA_DIR
from agentworld.servers.world.mine.facts import DEFAULT_SNAPSHOT

from .compile import MIN_TOOLS, compile_mined, env_id_for

__all__ = ["MINED_INDEX", "MINED_REPORT", "snapshot_records", "snapshot_record", "candidates",
           "filter_record", "build_mined_world"]

MINED_INDEX = DATA_DIR / "mined.json"
MINED_REPORT = DATA_DIR / "mined_report.json"
_SUBJECT = re.compile(r"^(rule )?([^:]+):")


@functools.cache
def _snapshot_bytes(path: str) -> bytes:
    raw = Path(path).read_bytes()
    return gzip.decompress(raw) if path.endswith(".gz") else raw


@functools.cache
def snapshot_records(path: str = str(DEFAULT_SNAPSHOT)) -> dict[str, dict[str, Any]]:
    """The snapshot's records by package name (facts only; see mine/facts.py)."""
    lines = _snapshot_bytes(path).decode().splitlines()
    return {r["name"]: r for r in map(json.loads, lines[1:]) if r}


@functools.lru_cache(maxsize=4096)
def snapshot_record(name: str, path: str = str(DEFAULT_SNAPSHOT)) -> dict[str, Any]:
    """One package's record, parsing only its own line: building one environment on demand
    should not parse six thousand records (about 3 s). KeyError for a package the snapshot
    lacks."""
    data = _snapshot_bytes(path)
    needle = json.dumps(name).encode()
    at = data.find(b"\n")                  # the header line is not a record
    while (at := data.find(needle, at + 1)) != -1:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        record = json.loads(data[start:end if end != -1 else len(data)])
        if record and record.get("name") == name:
            return record
        at = end if end != -1 else len(data)
    raise KeyError(name)


def candidates(records: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Selected, not a republished copy, in a stable order (most tools first, then name)."""
    chosen = [r for r in records.values()
              if r.get("selected") and not r.get("duplicate_of") and r.get("l2")]
    return sorted(chosen, key=lambda r: (-len(r["tools"]), r["name"]))


def _failing_tools(problems: list[str], rules: dict[str, tuple[str, ...]],
                   tools: set[str]) -> dict[str, str]:
    """The tools the filters' problems name (directly or through a rule); empty when a problem
    is not about a tool (a build failure), which dropping tools cannot repair."""
    out: dict[str, str] = {}
    for problem in problems:
        m = _SUBJECT.match(problem)
        if not m:
            return {}
        subject = m.group(2).strip()
        reason = f"failed the filters: {problem[m.end():].strip()[:160]}"
        named = [t for t in rules.get(subject, (subject,)) if t in tools]
        if not named:
            return {}
        for tool in named:
            out.setdefault(tool, reason)
    return out


def filter_record(record: dict[str, Any]) -> dict[str, Any]:
    """Compile and filter one server, repairing it once by dropping failing tools. Runs in a
    worker process."""
    from agentworld.servers.world.filters import run_filters

    env_id = env_id_for(record["name"])
    outcome: dict[str, Any] = {"package": record["name"], "env_id": env_id, "exclude": {},
                               "passed": False, "surface": len(record["tools"])}
    exclude: dict[str, str] = {}
    for attempt in range(2):
        try:
            compiled = compile_mined(record, env_id=env_id, exclude=exclude)
        except Exception as exc:   # a surface the compiler cannot handle is reported, not fatal
            outcome["problems"] = [f"compile failed: {type(exc).__name__}: {exc}"[:300]]
            return outcome
        report = run_filters(compiled)
        provenance = compiled.definition.manifest.provenance
        outcome.update(first=report.to_dict() if attempt == 0 else outcome.get("first"),
                       tools=report.tools, rules=report.rules, rows=report.rows,
                       kept=provenance["kept"], added=provenance["added"],
                       dropped=provenance["dropped"], problems=report.problems[:8],
                       repaired=attempt == 1, l1=compiled.card.l1, l2=compiled.card.l2,
                       title=compiled.card.title, description=compiled.card.description)
        outcome["data_findings"] = report.data_findings
        if report.passed_with_data:
            outcome["passed"] = report.tools >= MIN_TOOLS
            outcome["exclude"] = exclude
            outcome["tool_names"] = sorted(compiled.definition.tools.names())
            return outcome
        rules = {spec.rule.id: spec.rule.tools for spec in compiled.rules}
        more = _failing_tools(report.problems, rules, set(compiled.definition.tools.names()))
        if not more:
            return outcome
        exclude = {**exclude, **more}
    return outcome


def _unique(outcomes: list[dict[str, Any]], taken: set[str]) -> list[dict[str, Any]]:
    """Kept outcomes with free ids and distinct tool-name sets, first come first served."""
    kept, sets = [], set()
    for o in outcomes:
        if not o["passed"]:
            continue
        key = tuple(o["tool_names"])
        env_id = o["env_id"]
        if env_id in taken:
            env_id = re.sub(r"[^a-z0-9]+", "-", o["package"].lower()).strip("-")
        if env_id in taken or key in sets:
            o["passed"], o["problems"] = False, ["same id or tool-name set as a kept server"]
            continue
        o["env_id"] = env_id
        taken.add(env_id)
        sets.add(key)
        kept.append(o)
    return kept


@functools.cache
def engine_fingerprint() -> str:
    """A hash of the compiler's and filters' sources: outcomes memoized under another
    fingerprint were produced by other code and are recomputed."""
    digest = hashlib.blake2b(digest_size=8)
    here = Path(__file__).parent
    for path in sorted([*here.glob("*.py"), here.parent / "filters.py",
                        *(here.parent / "data_audit").glob("*.py")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _memo_key(record: dict[str, Any]) -> str:
    return f"{record['name']}|{record['version']}|{record['sha256']}|{engine_fingerprint()}"


def _load_memo(memo: Path | None) -> dict[str, dict[str, Any]]:
    if memo is None or not memo.exists():
        return {}
    out = {}
    for line in memo.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue                  # a line cut short by an interrupted run
        out[entry["key"]] = entry["outcome"]
    return out


def build_mined_world(*, workers: int | None = None, limit: int | None = None,
                      progress: bool = True, snapshot: str | None = None,
                      reserved_ids: set[str] = frozenset(), out: Path = MINED_INDEX,
                      report_path: Path = MINED_REPORT, memo: Path | None = None,
                      deadline: float | None = None) -> dict[str, Any]:
    """Filter the snapshot's candidates and write the index and report.

    ``memo`` (a JSONL file) keeps every outcome as it arrives, so an interrupted or repeated
    build redoes only what is new; after ``deadline`` (a ``time.time()``) no new candidate is
    started and the index is written from the outcomes in hand.
    """
    records = snapshot_records(snapshot or str(DEFAULT_SNAPSHOT))
    todo = candidates(records)[:limit]
    workers = workers or os.cpu_count() or 1
    done = _load_memo(memo)
    outcomes = [done[_memo_key(r)] for r in todo if _memo_key(r) in done]
    # Smallest surfaces first, so the bar moves; the priority order is restored afterwards.
    rank = {r["name"]: i for i, r in enumerate(todo)}
    jobs = sorted((r for r in todo if _memo_key(r) not in done), key=lambda r: len(r["tools"]))
    log = memo.open("a", encoding="utf-8") if memo is not None else None
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            pending = {}
            queue = iter(jobs)
            bar = tqdm(total=len(jobs), desc="mined world", disable=not progress, unit="env")
            for r in itertools.islice(queue, workers * 2):
                pending[pool.submit(filter_record, r)] = r
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    record = pending.pop(future)
                    outcome = future.result()
                    outcomes.append(outcome)
                    if log is not None:
                        log.write(json.dumps({"key": _memo_key(record), "outcome": outcome})
                                  + "\n")
                        log.flush()
                    bar.update()
                    if deadline is None or time.time() < deadline:
                        nxt = next(queue, None)
                        if nxt is not None:
                            pending[pool.submit(filter_record, nxt)] = nxt
            bar.close()
    finally:
        if log is not None:
            log.close()
    outcomes.sort(key=lambda o: rank[o["package"]])
    kept = _unique(outcomes, set(reserved_ids))
    index = [{"id": o["env_id"], "package": o["package"],
              "version": records[o["package"]]["version"], "title": o["title"],
              "description": o["description"], "l1": o["l1"], "l2": o["l2"],
              "exclude": o["exclude"], "tools": len(o["tool_names"]),
              "tool_names": o["tool_names"]} for o in kept]
    out.write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    report = _report(outcomes, kept)
    report["not_started"] = len(todo) - len(outcomes)
    report_path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return report


def _report(outcomes: list[dict[str, Any]], kept: list[dict[str, Any]]) -> dict[str, Any]:
    def rate(key: str, stage: str = "first") -> float:
        done = [o for o in outcomes if o.get(stage)]
        return round(sum(o[stage][key] for o in done) / max(len(outcomes), 1), 4)

    reasons: dict[str, int] = {}
    for o in outcomes:
        for d in o.get("dropped", []):
            reason = d["reason"].split(":")[0]
            reasons[reason] = reasons.get(reason, 0) + 1
    kept_share = [len(o["kept"]) / max(o["surface"], 1) for o in kept]
    findings: dict[str, int] = {}
    for o in outcomes:
        for rule, n in (o.get("data_findings") or {}).items():
            findings[rule] = findings.get(rule, 0) + n
    return {
        "candidates": len(outcomes), "kept": len(kept),
        "first_pass": {k: rate(k) for k in ("builds", "unit_tests", "audit", "data")},
        "data_findings": dict(sorted(findings.items(), key=lambda kv: -kv[1])),
        "passed_after_repair": sum(o["passed"] for o in outcomes),
        "repaired": sum(bool(o.get("repaired")) and o["passed"] for o in outcomes),
        "tools": {"total": sum(len(o["tool_names"]) for o in kept),
                  "mined": sum(len(o["kept"]) for o in kept),
                  "added": sum(len(o["added"]) for o in kept)},
        "kept_share": {"mean": round(sum(kept_share) / max(len(kept_share), 1), 4),
                       "deciles": _deciles(kept_share)},
        "drop_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
        "environments": {o["env_id"]: {k: o[k] for k in ("package", "tools", "rules", "rows")}
                         for o in kept},
        "failed": [{"package": o["package"], "problems": o.get("problems", [])[:4]}
                   for o in outcomes if not o["passed"]][:300],
    }


def _deciles(values: list[float]) -> list[float]:
    if not values:
        return []
    ordered = sorted(values)
    return [round(ordered[min(len(ordered) - 1, int(len(ordered) * q / 10))], 3)
            for q in range(11)]

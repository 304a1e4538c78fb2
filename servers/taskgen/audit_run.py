"""The audit over environments: load (or generate) each task set, audit every task, report."""

from __future__ import annotations

from typing import Any

from .audit import EQUIVALENT, NEAR_MISS, TaskAudit, audit_task, summarize
from .graph import ToolGraph

__all__ = ["audit_environments", "print_table"]


def audit_environments(catalog, env_ids: list[str], *, store=None, progress: bool = False,
                       seed: int = 1) -> dict[str, Any]:
    """Audit every task of ``env_ids``; the summary plus one row per task.

    Generation audits its candidates with seed 0 and drops what it finds; the default seed here
    draws other variants (other extra reads, other collateral writes, other rivals), so the
    report measures the kept tasks on mutations the generator never saw."""
    from tqdm import tqdm

    from .run import tasks_for

    audits: list[TaskAudit] = []
    for env_id in tqdm(env_ids, disable=not progress, desc="audit", unit="env"):
        env = catalog.load(env_id)
        graph = ToolGraph.of(env.tools)
        for record in tasks_for(catalog, env_id, store):
            audits.append(audit_task(env, record, graph=graph, seed=seed))
    return {**summarize(audits), "environments": len(env_ids), "seed": seed,
            "tasks_detail": [a.to_dict() for a in audits]}


def print_table(report: dict[str, Any]) -> None:
    print(f"{report['tasks']} tasks in {report['environments']} environments; "
          f"{report['tasks_ok']} pass every audit")
    print(f"{'variant':<22} {'must':<5} {'ran':>6} {'wrong':>6}")
    for kind in EQUIVALENT + NEAR_MISS:
        row = report["per_kind"][kind]
        must = "pass" if row["family"] == "equivalent" else "fail"
        print(f"{kind:<22} {must:<5} {row['variants']:>6} {row['wrong']:>6}"
              + (f"  {', '.join(row['wrong_tasks'][:4])}" if row["wrong_tasks"] else ""))
    eq, nm = report["equivalent"], report["near_miss"]
    print(f"false negatives: {eq['false_negatives']} of {eq['variants']} equivalent solutions")
    print(f"false positives: {nm['false_positives']} of {nm['variants']} near misses "
          f"({100 * nm['rate']:.2f}%)")
    for label, key in (("reference solution failed", "reference_failed"),
                       ("answer in prompt", "answer_in_prompt"),
                       ("unspecified step", "unspecified_step"),
                       ("write that changes nothing", "redundant_step"),
                       ("write that ignores the record it names", "inert_argument")):
        items = report[key]
        print(f"{label}: {len(items)}" + (f" ({', '.join(items[:8])})" if items else ""))
    for title, key in (("false negatives", "false_negative_tasks"),
                       ("false positives", "false_positive_tasks")):
        for task_id, rows in list(report[key].items())[:20]:
            print(f"  {title[:-1]}: {task_id}: " + "; ".join(f"{k} ({d})" for k, d in rows))

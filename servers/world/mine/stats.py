"""The mine in numbers: downloads, rejections, tools, distinct surfaces, selection by category."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..taxonomy import TAXONOMY
from .facts import PackageRecord

__all__ = ["mine_stats", "stats_markdown"]


def _by_category(records: list[PackageRecord]) -> dict[str, dict[str, int]]:
    table = {c.l2: {"l1": c.l1, "with_tools": 0, "selected": 0, "selected_10": 0}
             for c in TAXONOMY}
    for r in records:
        if r.l2 in table and r.tools:
            row = table[r.l2]
            row["with_tools"] += 1
            row["selected"] += r.selected
            row["selected_10"] += r.selected and len(r.tools) >= 10
    return table


def mine_stats(records: list[PackageRecord]) -> dict[str, Any]:
    """Counts over a snapshot's records (see ``docs/world.md`` for what each means)."""
    mined = [r for r in records if r.status == "mined"]
    with_tools = [r for r in mined if r.tools]
    counts = [len(r.tools) for r in with_tools]
    selected = [r for r in mined if r.selected]
    problems: Counter[str] = Counter()
    for r in mined:
        problems.update(r.problems)
    return {
        "candidates": len(records),
        "downloaded": sum(r.status != "failed" for r in records),
        "failed": sum(r.status == "failed" for r in records),
        "rejected": dict(Counter(r.reason for r in records if r.status == "rejected")),
        "wheels": sum(r.kind == "wheel" for r in mined),
        "sdists": sum(r.kind == "sdist" for r in mined),
        "with_tools": len(with_tools),
        "tools": sum(counts),
        "with_5_tools": sum(c >= 5 for c in counts),
        "with_10_tools": sum(c >= 10 for c in counts),
        "distinct_surfaces": len({r.surface_key() for r in with_tools}),
        "copies": sum(bool(r.duplicate_of) for r in mined),
        "selected": len(selected),
        "selected_10_tools": sum(len(r.tools) >= 10 for r in selected),
        "selected_tools": sum(len(r.tools) for r in selected),
        "tools_without_params": sum(t["params"] is None for r in with_tools for t in r.tools),
        "problems": dict(sorted(problems.items())),
        "licences": dict(Counter(r.licence or "(none)" for r in selected).most_common(8)),
        "by_category": _by_category(mined),
    }


def stats_markdown(stats: dict[str, Any]) -> str:
    """The same numbers as a markdown table, then the categories."""
    lines = ["| measure | value |", "| --- | --- |"]
    for key, value in stats.items():
        if key != "by_category":
            lines.append(f"| {key} | {value} |")
    lines += ["", "| category | with tools | selected | selected, >=10 tools |",
              "| --- | --- | --- | --- |"]
    for l2, row in stats["by_category"].items():
        lines.append(f"| {row['l1']} / {l2} | {row['with_tools']} | {row['selected']} | "
                     f"{row['selected_10']} |")
    return "\n".join(lines)

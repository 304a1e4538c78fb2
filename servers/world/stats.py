"""``agentworld catalog stats``: the world's shape, diversity and filter pass rates."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .cards import load_archetypes
from .compile import card_sources
from .data import SOURCES
from .pipeline import WORLD_REPORT
from .registry import world_cards
from .taxonomy import REFERENCE_LEAVES, TAXONOMY

__all__ = ["catalog_stats", "stats_markdown"]


def catalog_stats(reference: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``reference`` maps each hand-built environment id to {tools, rows, l1, l2}."""
    cards = list(world_cards().values())
    report = json.loads(WORLD_REPORT.read_text()) if WORLD_REPORT.exists() else {}
    per_env = report.get("environments", {})
    tools = [per_env[c.id]["tools"] for c in cards if c.id in per_env]
    tools += [r["tools"] for r in reference.values()]
    rows = sum(per_env[c.id]["rows"] for c in cards if c.id in per_env)
    rows += sum(r["rows"] for r in reference.values())
    l1s = Counter(c.l1 for c in cards) + Counter(r["l1"] for r in reference.values())
    identities = {(c.archetype, c.features, c.region) for c in cards}
    archetypes = load_archetypes()
    data_sources = Counter(SOURCES[s].name for c in cards
                           for s in card_sources(c, archetypes[c.archetype]))
    sources = Counter(tag for c in cards for tag in ("region:" + c.region,))
    return {
        "environments": len(cards) + len(reference),
        "synthesized": len(cards), "hand_built": len(reference),
        "levels": {"l1": len({c.l1 for c in TAXONOMY}), "l2": len(TAXONOMY),
                   "l3": len(cards) + len(reference)},
        "per_l1": dict(sorted(l1s.items())),
        "tools": {"total": sum(tools), "min_per_env": min(tools) if tools else 0,
                  "max_per_env": max(tools) if tools else 0,
                  "measured_envs": len(tools)},
        "rows": rows,
        "data_sources": dict(sorted(data_sources.items())),
        "archetypes": len({c.archetype for c in cards}),
        "feature_sets": len({c.features for c in cards}),
        "archetype_feature_combinations": len({(c.archetype, c.features) for c in cards}),
        "regions": len(sources),
        "unique_identities": len(identities) == len(cards),
        "filters": {"candidates": report.get("candidates"), "kept": report.get("kept"),
                    "first_pass": report.get("first_pass"), "final_pass": report.get("final_pass"),
                    "repaired": len(report.get("repaired", [])),
                    "dropped": len(report.get("dropped", []))},
        "reference_leaves": REFERENCE_LEAVES,
    }


def stats_markdown(stats: dict[str, Any]) -> str:
    lines = ["# agentworld catalog", "",
             f"- environments: {stats['environments']} ({stats['synthesized']} synthesized, "
             f"{stats['hand_built']} hand-built)",
             f"- taxonomy: {stats['levels']['l1']} / {stats['levels']['l2']} / "
             f"{stats['levels']['l3']}",
             f"- tools: {stats['tools']['total']} (min {stats['tools']['min_per_env']}, max "
             f"{stats['tools']['max_per_env']} per environment)",
             f"- seeded rows: {stats['rows']}",
             f"- data sources ({len(stats['data_sources'])}): " + "; ".join(
                 f"{name} in {n}" for name, n in stats["data_sources"].items()),
             f"- archetypes: {stats['archetypes']}; feature sets: {stats['feature_sets']}; "
             f"archetype x feature-set combinations: "
             f"{stats['archetype_feature_combinations']}; regions: {stats['regions']}",
             f"- no two environments share archetype, feature set and region: "
             f"{stats['unique_identities']}", "", "## Filters", ""]
    f = stats["filters"]
    if f["first_pass"]:
        lines += ["| filter | first pass | after repair |", "| --- | --- | --- |"]
        for key in ("builds", "unit_tests", "audit"):
            lines.append(f"| {key} | {f['first_pass'][key]:.1%} | {f['final_pass'][key]:.1%} |")
        lines += ["", f"{f['candidates']} candidates, {f['kept']} kept, {f['repaired']} repaired, "
                  f"{f['dropped']} dropped."]
    lines += ["", "## Environments per top-level category", "", "| category | environments |",
              "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in stats["per_l1"].items()]
    return "\n".join(lines) + "\n"

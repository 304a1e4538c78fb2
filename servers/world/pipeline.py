"""The offline synthesis pipeline: leaves -> theme cards -> compiled environments -> filters.

An environment that fails a filter is repaired by dropping the feature modules whose tools or
rules failed, and filtered again; if it still fails it is dropped and counted. The cards that
pass are written to ``pools/world.json``, the index the catalog serves, with a report of every
filter's pass rate, every repair and every drop.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from .cards import load_archetypes, make_cards
from .compile import compile_card
from .data import DATA_DIR, regions
from .filters import FilterReport, run_filters
from .progress import Progress
from .spec import ThemeCard

__all__ = ["synthesize_world", "filter_card", "WORLD_INDEX", "WORLD_REPORT"]

WORLD_INDEX = DATA_DIR / "world.json"
WORLD_REPORT = DATA_DIR / "world_report.json"

_ARCHETYPES: dict | None = None


def _archetypes():
    global _ARCHETYPES
    if _ARCHETYPES is None:
        _ARCHETYPES = load_archetypes()
    return _ARCHETYPES


def _failing_features(report: FilterReport, compiled) -> set[str] | None:
    """The features whose tools or rules the problems name; None when an entity's own tool or
    rule failed (dropping features cannot repair that)."""
    bad: set[str] = set()
    for problem in report.problems:
        subject = problem.split(":")[0].removeprefix("rule ").strip()
        owner = compiled.owners.get(subject)
        if owner is None:
            return None
        bad.add(owner)
    return bad


def filter_card(card: ThemeCard) -> dict[str, Any]:
    """Filter one card, repairing it once if features fail. Runs in a worker process."""
    archetype = _archetypes()[card.archetype]
    compiled = compile_card(card, archetype)
    first = run_filters(compiled)
    outcome: dict[str, Any] = {"card": asdict(card), "first": first.to_dict(), "repaired": False}
    if first.passed and first.tools >= 10:
        outcome["final"] = first.to_dict()
        outcome["sources"] = sorted(d.name for d in compiled.definition.manifest.data_sources)
        return outcome
    drop = _failing_features(first, compiled)
    if drop:
        repaired = replace(card, features=tuple(f for f in card.features if f not in drop))
        compiled = compile_card(repaired, archetype)
        second = run_filters(compiled)
        outcome.update(card=asdict(repaired), repaired=True, final=second.to_dict(),
                       dropped_features=sorted(drop))
    else:
        outcome["final"] = first.to_dict()
    outcome["sources"] = sorted(d.name for d in compiled.definition.manifest.data_sources)
    return outcome


def synthesize_world(*, workers: int | None = None, progress: bool = True,
                     limit: int | None = None, out: Path = WORLD_INDEX,
                     report_path: Path = WORLD_REPORT) -> dict[str, Any]:
    """Run every leaf's card through the filters and write the world index and report."""
    cards = list(make_cards())[:limit]
    bar = Progress(len(cards), "synthesize", enabled=progress)
    results = []
    workers = workers or os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for result in pool.map(filter_card, cards, chunksize=8):
            results.append(result)
            bar.advance()
    results = _keep_identities_unique(results)
    kept = [r for r in results if _passed(r)]
    report = _report(results, kept)
    out.write_text(json.dumps([r["card"] for r in kept], indent=1, ensure_ascii=False) + "\n")
    report_path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return report


def _passed(result: dict[str, Any]) -> bool:
    final = result["final"]
    return final["builds"] and final["unit_tests"] and final["audit"] and final["tools"] >= 10


def _identity(card: dict[str, Any]) -> tuple:
    return card["archetype"], tuple(card["features"]), card["region"]


def _keep_identities_unique(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A repair can make a card's (archetype, features, region) equal another's: move the later
    one to an unused region and filter it again."""
    taken = {_identity(r["card"]) for r in results}
    seen: set[tuple] = set()
    out = []
    for result in results:
        identity = _identity(result["card"])
        if identity in seen:
            card = ThemeCard(**{**result["card"], "features": tuple(result["card"]["features"])})
            for code in regions():
                moved = replace(card, region=code)
                if _identity(asdict(moved)) not in taken:
                    taken.add(_identity(asdict(moved)))
                    result = {**filter_card(moved), "moved_from": card.region}
                    break
        seen.add(_identity(result["card"]))
        out.append(result)
    return out


def _report(results: list[dict], kept: list[dict]) -> dict[str, Any]:
    def rate(stage: str, key: str) -> float:
        return sum(1 for r in results if r[stage][key]) / max(len(results), 1)

    return {
        "candidates": len(results), "kept": len(kept),
        "environments": {r["card"]["id"]: {**{k: r["final"][k] for k in ("tools", "rules", "rows")},
                                           "sources": r["sources"]} for r in kept},
        "first_pass": {k: rate("first", k) for k in ("builds", "unit_tests", "audit")},
        "final_pass": {k: rate("final", k) for k in ("builds", "unit_tests", "audit")},
        "repaired": [{"env_id": r["card"]["id"], "dropped_features": r["dropped_features"],
                      "problems": r["first"]["problems"][:5]}
                     for r in results if r["repaired"]],
        "dropped": [{"env_id": r["card"]["id"], "problems": r["final"]["problems"][:5]}
                    for r in results if r not in kept],
    }

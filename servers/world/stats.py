"""``agentworld catalog stats``: the world's shape, provenance, diversity and filter pass rates."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from itertools import combinations
from typing import Any

from agentworld.servers.words import stem, words

from .cards import load_archetypes
from .compile import card_sources, compile_card
from .data import SOURCES
from .pipeline import WORLD_REPORT
from .registry import is_mined, mined_entries, world_cards
from .spec import ThemeCard
from .taxonomy import REFERENCE_LEAVES, TAXONOMY

__all__ = ["catalog_stats", "stats_markdown", "tool_names", "name_matches_tools",
           "mean_jaccard_within"]

_STOPWORDS = frozenset("the and for of a an to in on with by from service server mcp api app "
                       "get list create update delete set add remove search".split())


def tool_names(card: ThemeCard) -> list[str]:
    """An environment's tool names, without building its database."""
    if is_mined(card):
        return list(mined_entries()[card.id]["tool_names"])
    return compile_card(card, load_archetypes()[card.archetype]).definition.tools.names()


def _content_words(text: str) -> set[str]:
    return {stem(w) for w in words(text) if len(w) > 2 and w not in _STOPWORDS
            and not re.fullmatch(r"\d+", w)}


def name_matches_tools(card: ThemeCard, names: list[str]) -> bool:
    """Whether the id or title shares a content word with the tool names."""
    tool_words = set().union(*(_content_words(n) for n in names)) if names else set()
    return bool((_content_words(card.id) | _content_words(card.title)) & tool_words)


def mean_jaccard_within(groups: dict[str, list[frozenset[str]]]) -> float:
    """Mean Jaccard similarity of tool-name sets over pairs in the same group."""
    total, pairs = 0.0, 0
    for sets in groups.values():
        for a, b in combinations(sets, 2):
            total += len(a & b) / max(len(a | b), 1)
            pairs += 1
    return round(total / pairs, 4) if pairs else 0.0


def _mined_report() -> dict[str, Any]:
    from .mined.world import MINED_REPORT

    return json.loads(MINED_REPORT.read_text()) if MINED_REPORT.exists() else {}


def catalog_stats(reference: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``reference`` maps each hand-built environment id to {tools, rows, l1, l2}."""
    cards = list(world_cards().values())
    mined = [c for c in cards if is_mined(c)]
    packs = [c for c in cards if not is_mined(c)]
    report = json.loads(WORLD_REPORT.read_text()) if WORLD_REPORT.exists() else {}
    mined_report = _mined_report()
    per_env = {**report.get("environments", {}), **mined_report.get("environments", {})}
    names = {c.id: tool_names(c) for c in cards}
    tools = [len(names[c.id]) for c in cards] + [r["tools"] for r in reference.values()]
    rows = sum(per_env[c.id]["rows"] for c in cards if c.id in per_env)
    rows += sum(r["rows"] for r in reference.values())
    l1s = Counter(c.l1 for c in cards) + Counter(r["l1"] for r in reference.values())
    l2s = Counter(c.l2 for c in cards) + Counter(r["l2"] for r in reference.values())
    sets = Counter(frozenset(n) for n in names.values())
    by_l2: dict[str, list[frozenset[str]]] = defaultdict(list)
    for c in cards:
        by_l2[c.l2].append(frozenset(names[c.id]))
    archetypes = load_archetypes()
    data_sources = Counter(SOURCES[s].name for c in packs
                           for s in card_sources(c, archetypes[c.archetype]))
    data_sources += Counter(d.name for c in mined for d in (
        SOURCES["people"], SOURCES["cities"], SOURCES["countries"], SOURCES["rates"],
        SOURCES["companies"]))
    identities = {(c.archetype, c.features, c.region) for c in cards}
    return {
        "environments": len(cards) + len(reference),
        "synthesized": len(cards), "hand_built": len(reference),
        "provenance": {"mined": len(mined), "domain_pack": len(packs),
                       "reference": len(reference)},
        "levels": {"l1": len({c.l1 for c in TAXONOMY}), "l2": len(TAXONOMY),
                   "l3": len(cards) + len(reference)},
        "per_l1": dict(sorted(l1s.items())),
        "per_l2": dict(sorted(l2s.items())),
        "tools": {"total": sum(tools), "min_per_env": min(tools) if tools else 0,
                  "max_per_env": max(tools) if tools else 0, "measured_envs": len(tools)},
        "diversity": {
            "distinct_tool_sets": len(sets),
            "envs_sharing_a_tool_set": sum(n for n in sets.values() if n > 1),
            "mean_jaccard_within_l2": mean_jaccard_within(by_l2),
            "mean_jaccard_within_l2_mined": mean_jaccard_within(
                {k: [frozenset(names[c.id]) for c in mined if c.l2 == k] for k in by_l2}),
            "name_matches_tools": round(sum(name_matches_tools(c, names[c.id]) for c in cards)
                                        / max(len(cards), 1), 4)},
        "mined": {k: mined_report.get(k) for k in ("candidates", "kept", "first_pass",
                                                   "passed_after_repair", "tools", "kept_share",
                                                   "drop_reasons")},
        "rows": rows,
        "data_sources": dict(sorted(data_sources.items())),
        "archetypes": len({c.archetype for c in packs}),
        "feature_sets": len({c.features for c in packs}),
        "archetype_feature_combinations": len({(c.archetype, c.features) for c in packs}),
        "regions": len({c.region for c in packs}),
        "unique_identities": len(identities) == len(cards),
        "filters": {"candidates": report.get("candidates"), "kept": report.get("kept"),
                    "first_pass": report.get("first_pass"), "final_pass": report.get("final_pass"),
                    "repaired": len(report.get("repaired", [])),
                    "dropped": len(report.get("dropped", []))},
        "reference_leaves": REFERENCE_LEAVES,
    }


def stats_markdown(stats: dict[str, Any]) -> str:
    p, d = stats["provenance"], stats["diversity"]
    lines = ["# agentworld catalog", "",
             f"- environments: {stats['environments']} ({p['mined']} mined from real MCP "
             f"servers, {p['domain_pack']} from domain packs, {p['reference']} hand-built)",
             f"- taxonomy: {stats['levels']['l1']} / {stats['levels']['l2']} / "
             f"{stats['levels']['l3']}",
             f"- tools: {stats['tools']['total']} (min {stats['tools']['min_per_env']}, max "
             f"{stats['tools']['max_per_env']} per environment)",
             f"- distinct tool-name sets: {d['distinct_tool_sets']}; environments sharing a "
             f"set with another: {d['envs_sharing_a_tool_set']}",
             f"- mean Jaccard of tool-name sets within a second-level category: "
             f"{d['mean_jaccard_within_l2']} (mined only: {d['mean_jaccard_within_l2_mined']})",
             f"- id or title shares a content word with the tools: {d['name_matches_tools']:.1%}",
             f"- seeded rows: {stats['rows']}",
             f"- data sources ({len(stats['data_sources'])}): " + "; ".join(
                 f"{name} in {n}" for name, n in stats["data_sources"].items())]
    m = stats["mined"]
    if m.get("candidates"):
        lines += ["", "## Mined servers", "",
                  f"{m['candidates']} candidates, {m['kept']} kept; tools: {m['tools']['mined']}"
                  f" mined and {m['tools']['added']} added; on average "
                  f"{m['kept_share']['mean']:.0%} of a kept server's tools are kept.", "",
                  "| filter | first pass |", "| --- | --- |"]
        lines += [f"| {k} | {v:.1%} |" for k, v in m["first_pass"].items()]
        lines += ["", "| drop reason | tools |", "| --- | --- |"]
        lines += [f"| {k} | {v} |" for k, v in list(m["drop_reasons"].items())[:10]]
    f = stats["filters"]
    if f["first_pass"]:
        lines += ["", "## Domain-pack filters", "", "| filter | first pass | after repair |",
                  "| --- | --- | --- |"]
        for key in ("builds", "unit_tests", "audit"):
            lines.append(f"| {key} | {f['first_pass'][key]:.1%} | {f['final_pass'][key]:.1%} |")
    lines += ["", "## Environments per top-level category", "", "| category | environments |",
              "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in stats["per_l1"].items()]
    return "\n".join(lines) + "\n"

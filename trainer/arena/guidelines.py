"""Generation guidelines: the diagnosis turned into what the synthesis should make next.

The guidelines are JSON (``guidelines.json`` in each round's directory) and are the only thing
the targeted synthesis reads, so an LLM analyzer or a person can edit them between rounds.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from .diagnosis import Diagnosis, EnvFacts, family_of
from .records import EpisodeRecord
from .synthesis import Focus

__all__ = ["write_guidelines", "focus_of", "WEAK_FAMILY_RATE"]

WEAK_FAMILY_RATE = 0.5      # an ability whose calls fail at least this often is a focus
MAX_FAMILIES = 3            # at most this many: a focus on everything is no focus
_DATA_CLASSES = {"hallucinated_id", "broken_rule", "wrong_answer", "out_of_steps"}


def _broken_rules(env_id: str, diagnosis: Diagnosis, facts: EnvFacts) -> list[dict[str, Any]]:
    refused = {(s["tool"], s["code"]) for e in diagnosis.episodes if e["env_id"] == env_id
               for s in e["steps"] if s["class"] == "broken_rule"}
    return [{"id": r["id"], "code": r["code"], "tools": list(r["tools"])} for r in facts.rules
            if any((t, r["code"]) in refused for t in r["tools"])]


def _chain_length(env_id: str, episodes: Sequence[EpisodeRecord]) -> int:
    failed = [len(e.reference_tools) for e in episodes if e.env_id == env_id and not e.passed]
    return max(4, min(8, int(statistics.median(failed)) + 1 if failed else 4))


def _env_guideline(row: dict[str, Any], diagnosis: Diagnosis, facts: EnvFacts,
                   families: Sequence[str], episodes: Sequence[EpisodeRecord], rank: int,
                   complexify: int) -> dict[str, Any]:
    env_id = row["env_id"]
    failed_tools = list(row["failed_tools"])
    rules = _broken_rules(env_id, diagnosis, facts)
    family_tools = sorted(t for t in facts.tool_kinds if family_of(t) in families)
    focus = list(dict.fromkeys(failed_tools + [t for r in rules for t in r["tools"]]
                               + family_tools))
    reasons = []
    if rank <= complexify:
        reasons.append(f"weakness rank {rank}")
    data = sorted(_DATA_CLASSES & set(row["classes"]))
    if data:
        reasons.append("failures that depend on the data: " + ", ".join(data))
    return {"env_id": env_id, "rank": rank, "success": row["success"],
            "weakness": row["weakness"], "failed_tools": row["failed_tools"],
            "error_codes": row["error_codes"], "failure_classes": row["classes"],
            "broken_rules": rules, "focus_tools": focus,
            "min_chain_length": _chain_length(env_id, episodes),
            "long_tasks": bool({"out_of_steps", "premature_submit"} & set(row["classes"]))
            or rank <= complexify,
            "complexify": bool(reasons) and rank <= max(complexify, 0), "reasons": reasons}


def _notes(diagnosis: Diagnosis, envs: Sequence[dict[str, Any]]) -> list[str]:
    notes = []
    for a in diagnosis.weak_abilities[:3]:
        codes = ", ".join(f"{c} x{n}" for c, n in a["error_codes"].items()) or "no error code"
        notes.append(f"Ability '{a['family']}_*': {a['failed_steps']} of {a['steps']} calls "
                     f"failed ({codes}).")
    for e in envs:
        tools = ", ".join(f"{t} x{n}" for t, n in list(e["failed_tools"].items())[:3])
        notes.append(f"{e['env_id']}: success {e['success']:.0%}"
                     + (f"; failing tools {tools}" if tools else "")
                     + (f"; broken rules {', '.join(r['id'] for r in e['broken_rules'])}"
                        if e["broken_rules"] else ""))
    return notes


def write_guidelines(diagnosis: Diagnosis, episodes: Sequence[EpisodeRecord],
                     facts: Mapping[str, EnvFacts], *, weak_envs: int, complexify: int,
                     round_index: int) -> dict[str, Any]:
    """The guidelines for the round's targeted synthesis."""
    families = [a["family"] for a in diagnosis.weak_abilities
                if a["step_error_rate"] >= WEAK_FAMILY_RATE][:MAX_FAMILIES]
    rows = diagnosis.weak_envs[:weak_envs]
    envs = [_env_guideline(row, diagnosis, facts.get(row["env_id"], EnvFacts()), families,
                           episodes, rank, complexify)
            for rank, row in enumerate(rows, 1)]
    return {"round": round_index, "analyzer": diagnosis.analyzer,
            "focus_families": families,
            "weak_abilities": [{k: a[k] for k in ("family", "rank", "steps", "failed_steps",
                                                  "step_error_rate", "classes")}
                               for a in diagnosis.weak_abilities],
            "envs": envs, "notes": _notes(diagnosis, envs)}


def focus_of(env_guideline: Mapping[str, Any]) -> Focus:
    return Focus(tools=tuple(env_guideline.get("focus_tools", ())),
                 min_calls=int(env_guideline.get("min_chain_length", 4)),
                 long=bool(env_guideline.get("long_tasks", True)),
                 reasons=tuple(env_guideline.get("reasons", ())))

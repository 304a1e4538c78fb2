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

__all__ = ["write_guidelines", "focus_of", "WEAK_FAMILY_RATE", "EASY_BELOW", "EASY_MAX_CALLS",
           "EASY_TOOLS"]

WEAK_FAMILY_RATE = 0.5      # an ability whose calls fail at least this often is a focus
# A policy that fails nearly everything gets no signal from longer tasks and richer databases:
# below this success its training tasks get shorter (at most EASY_MAX_CALLS calls) and show
# fewer tools (the EASY_TOOLS most relevant, compact), and no database is made richer.
EASY_BELOW = 0.1
EASY_MAX_CALLS = 2
EASY_TOOLS = 4
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


def _easier(env: dict[str, Any]) -> dict[str, Any]:
    return {**env, "min_chain_length": 1, "max_calls": EASY_MAX_CALLS, "long_tasks": False,
            "complexify": False,
            "reasons": [*env["reasons"], "the policy fails nearly everything: shorter tasks, "
                        "fewer tools shown, no richer database"]}


def write_guidelines(diagnosis: Diagnosis, episodes: Sequence[EpisodeRecord],
                     facts: Mapping[str, EnvFacts], *, weak_envs: int, complexify: int,
                     round_index: int, easy_below: float = EASY_BELOW) -> dict[str, Any]:
    """The guidelines for the round's targeted synthesis. ``curriculum`` is ``easier`` when the
    round's success is below ``easy_below``, else ``targeted``."""
    families = [a["family"] for a in diagnosis.weak_abilities
                if a["step_error_rate"] >= WEAK_FAMILY_RATE][:MAX_FAMILIES]
    rows = diagnosis.weak_envs[:weak_envs]
    envs = [_env_guideline(row, diagnosis, facts.get(row["env_id"], EnvFacts()), families,
                           episodes, rank, complexify)
            for rank, row in enumerate(rows, 1)]
    easier = diagnosis.overall["episodes"] > 0 and diagnosis.overall["success"] < easy_below
    if easier:
        envs = [_easier(e) for e in envs]
    return {"round": round_index, "analyzer": diagnosis.analyzer,
            "curriculum": "easier" if easier else "targeted",
            "train_tool_view": f"compact:{EASY_TOOLS}" if easier else None,
            "focus_families": families,
            "weak_abilities": [{k: a[k] for k in ("family", "rank", "steps", "failed_steps",
                                                  "step_error_rate", "classes")}
                               for a in diagnosis.weak_abilities],
            "envs": envs, "notes": _notes(diagnosis, envs)}


def focus_of(env_guideline: Mapping[str, Any]) -> Focus:
    max_calls = env_guideline.get("max_calls")
    return Focus(tools=tuple(env_guideline.get("focus_tools", ())),
                 min_calls=int(env_guideline.get("min_chain_length", 4)),
                 long=bool(env_guideline.get("long_tasks", True)),
                 max_calls=int(max_calls) if max_calls else None,
                 reasons=tuple(env_guideline.get("reasons", ())))

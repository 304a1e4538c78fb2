"""The LLM analyzer: a model behind an OpenAI-compatible endpoint reads the same evidence as the
rule-based diagnosis (its aggregates, rankings and a sample of failed trajectories) and names
weak spots and guidelines in its own words. What it says is added to the guidelines; tools it
names are used only if the environment has them."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from agentworld.servers.chat_client import chat_completion

from .diagnosis import Diagnosis, EnvFacts
from .records import EpisodeRecord

__all__ = ["AnalyzerError", "evidence", "analyze_with_llm", "merge_llm"]

SYSTEM = ("You are the diagnosis agent of a self-evolving tool-use agent. Read the evidence of "
          "one evaluation round and reply with JSON only: {\"weak_spots\": [{\"env_id\": str, "
          "\"tool\": str, \"description\": str}], \"guidelines\": [str]}. Each guideline says "
          "what training tasks to generate next.")


class AnalyzerError(Exception):
    """The endpoint failed or its reply was not the JSON asked for."""


def evidence(diagnosis: Diagnosis, episodes: Sequence[EpisodeRecord], *,
             max_trajectories: int = 6) -> dict[str, Any]:
    failed = [e for e in episodes if not e.passed][:max_trajectories]
    return {"overall": diagnosis.overall, "weak_envs": diagnosis.weak_envs[:8],
            "weak_abilities": diagnosis.weak_abilities[:8],
            "by_error_code": diagnosis.by.get("error_code", {}),
            "failed_trajectories": [
                {"env_id": e.env_id, "prompt": e.prompt[:400],
                 "steps": [{"tool": s.tool, "arguments": s.arguments, "ok": s.ok,
                            "code": s.error_code} for s in e.steps[:12]],
                 "submitted": e.submitted, "truncated": e.truncated} for e in failed]}


def _parse(content: str) -> dict[str, Any]:
    match = re.search(r"\{.*\}", content, re.S)
    if not match:
        raise AnalyzerError("the analyzer's reply holds no JSON object")
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise AnalyzerError(f"the analyzer's reply is not JSON: {exc.msg}") from None
    spots = value.get("weak_spots") if isinstance(value, dict) else None
    if not isinstance(spots, list):
        raise AnalyzerError("the analyzer's reply has no weak_spots list")
    return {"weak_spots": [s for s in spots if isinstance(s, dict)],
            "guidelines": [str(g) for g in value.get("guidelines", []) if g]}


def analyze_with_llm(diagnosis: Diagnosis, episodes: Sequence[EpisodeRecord], *, endpoint: str,
                     model: str, api_key: str | None = None, timeout: float = 120.0
                     ) -> dict[str, Any]:
    """Ask the model; returns ``{"weak_spots": [...], "guidelines": [...]}``.

    Raises:
        AnalyzerError: the endpoint could not be reached or answered something else.
    """
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": json.dumps(evidence(diagnosis, episodes), default=str)}]
    try:
        content = chat_completion(endpoint, model, messages, api_key=api_key, timeout=timeout)
    except (OSError, KeyError, IndexError, ValueError, TypeError) as exc:
        raise AnalyzerError(f"analyzer endpoint failed: {exc}") from None
    return _parse(content or "")


def merge_llm(guidelines: dict[str, Any], analysis: Mapping[str, Any],
              facts: Mapping[str, EnvFacts]) -> dict[str, Any]:
    """Add the analyzer's weak spots to the guidelines: its tools join an environment's focus
    when the environment has them; its guidelines join the notes."""
    by_env = {e["env_id"]: e for e in guidelines["envs"]}
    for spot in analysis.get("weak_spots", []):
        env = by_env.get(spot.get("env_id"))
        tool = spot.get("tool")
        known = facts.get(spot.get("env_id"), EnvFacts()).tool_kinds
        if env is not None and tool in known and tool not in env["focus_tools"]:
            env["focus_tools"].append(tool)
    guidelines["llm"] = dict(analysis)
    guidelines["notes"] = list(guidelines["notes"]) + [f"LLM: {g}" for g in
                                                       analysis.get("guidelines", [])]
    guidelines["analyzer"] = "rules+llm"
    return guidelines

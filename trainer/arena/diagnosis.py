"""The diagnosis agent, rule-based: it classifies every failed step and episode, aggregates the
failures, ranks the weak environments and abilities, and writes generation guidelines.

Deterministic: the same episodes give the same diagnosis, byte for byte. The optional LLM
analyzer (``llm_analyzer.py``) reads the same evidence and adds to it; it never replaces it.

Failure classes (``CLASSES``):

* ``no_tool_call``: the task needs tools but the policy made no readable call: it answered in
  plain text at once, or wrote a ``<tool_call>`` that could not be parsed (read as plain text,
  as TRL reads it). The main failure of small models;
* ``wrong_tool``: a tool that does not exist, or a write the reference solution never makes;
* ``invalid_arguments``: the call broke the tool's schema (``VALIDATION_ERROR``) or was not a
  well-formed action;
* ``hallucinated_id``: ``NOT_FOUND`` on an id that appeared neither in the prompt nor in any
  earlier output;
* ``broken_rule``: a business rule refused the call (``CONFLICT``, ``FORBIDDEN``,
  ``PRECONDITION_FAILED``, ``LIMIT_EXCEEDED``, or ``NOT_FOUND`` on an id the agent had seen);
* ``premature_submit``: submitted after some calls but before making every change the task
  needs;
* ``missing_submit``: the episode ended (or the policy stopped) without a submit;
* ``loop``: the same call with the same arguments again;
* ``out_of_steps``: the step limit ended the episode;
* ``wrong_answer``: submitted after the right calls, but the answer or end state is wrong;
* ``other_error``: any other tool error, or an episode that could not be played.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .records import EpisodeRecord, StepRecord

__all__ = ["CLASSES", "RULE_CODES", "EnvFacts", "Diagnosis", "classify_step",
           "classify_episode", "diagnose", "family_of"]

CLASSES = ("no_tool_call", "wrong_tool", "invalid_arguments", "hallucinated_id",
           "broken_rule", "premature_submit", "missing_submit", "loop", "out_of_steps",
           "wrong_answer", "other_error")
RULE_CODES = frozenset({"CONFLICT", "FORBIDDEN", "PRECONDITION_FAILED", "LIMIT_EXCEEDED"})
_READ_VERBS = ("search", "get", "list", "find")


def family_of(tool: str) -> str:
    """An ability: the verb a tool name starts with (``update_booking`` -> ``update``)."""
    return tool.split("_", 1)[0] if tool else "<none>"


@dataclass(frozen=True)
class EnvFacts:
    """What the diagnosis knows of an environment besides the episodes: its tools' kinds and
    its business rules (``{id, code, tools}``)."""

    tool_kinds: Mapping[str, str] = field(default_factory=dict)
    rules: Sequence[Mapping[str, Any]] = ()

    def is_write(self, tool: str) -> bool:
        kind = self.tool_kinds.get(tool)
        return kind == "mutation" if kind else not tool.startswith(_READ_VERBS)


def _id_values(arguments: Mapping[str, Any]) -> list[str]:
    return [str(v) for k, v in arguments.items()
            if (k == "id" or k.endswith("_id")) and isinstance(v, str | int)]


def classify_step(step: StepRecord, earlier: Sequence[StepRecord], seen_text: str,
                  reference_tools: Sequence[str], facts: EnvFacts) -> str | None:
    """The class of one step, or None when the step is fine. ``seen_text`` is the prompt plus
    every earlier output, as text."""
    if any(s.tool == step.tool and s.arguments == step.arguments for s in earlier):
        return "loop"
    if step.ok:
        if facts.is_write(step.tool) and step.tool not in reference_tools:
            return "wrong_tool"
        return None
    code = step.error_code or ""
    if code == "UNKNOWN_TOOL":
        return "wrong_tool"
    if code in ("VALIDATION_ERROR", "MALFORMED_ACTION"):
        return "invalid_arguments"
    if code == "NOT_FOUND":
        unseen = [v for v in _id_values(step.arguments) if v not in seen_text]
        return "hallucinated_id" if unseen else "broken_rule"
    if code in RULE_CODES:
        return "broken_rule"
    return "other_error"


def step_classes(ep: EpisodeRecord, facts: EnvFacts) -> list[str | None]:
    seen = ep.prompt
    out: list[str | None] = []
    for i, step in enumerate(ep.steps):
        out.append(classify_step(step, ep.steps[:i], seen, ep.reference_tools, facts))
        seen += "\n" + json.dumps(step.output, ensure_ascii=False, default=str)
    return out


def classify_episode(ep: EpisodeRecord, classes: Sequence[str | None], facts: EnvFacts
                     ) -> str | None:
    """The main cause of a failed episode (None when it passed)."""
    if ep.passed:
        return None
    if ep.error:
        return "other_error"
    if ep.reference_tools and all(s.error_code == "MALFORMED_ACTION" for s in ep.steps):
        return "no_tool_call"
    if classes.count("loop") >= 2:
        return "loop"
    if ep.truncated:
        return "out_of_steps"
    if not ep.submitted:
        return "missing_submit"
    failed = Counter(c for c in classes if c and c != "loop")
    if failed:
        top = max(failed.values())
        return next(c for c in CLASSES if failed.get(c) == top)
    done = {s.tool for s in ep.steps if s.ok}
    needed = {t for t in ep.reference_tools if facts.is_write(t)}
    if needed - done or (ep.reference_tools and not done):
        return "premature_submit"
    return "wrong_answer"


def _rate(num: float, den: float) -> float:
    return round(num / den, 4) if den else 0.0


class _Group:
    def __init__(self) -> None:
        self.episodes = self.passed = self.steps = self.failed_steps = 0
        self.reward = 0.0
        self.classes: Counter = Counter()
        self.codes: Counter = Counter()

    def to_dict(self) -> dict[str, Any]:
        return {"episodes": self.episodes, "passed": self.passed,
                "success": _rate(self.passed, self.episodes),
                "partial_credit": _rate(self.reward, self.episodes),
                "steps": self.steps, "failed_steps": self.failed_steps,
                "step_error_rate": _rate(self.failed_steps, self.steps),
                "classes": dict(sorted(self.classes.items())),
                "error_codes": dict(sorted(self.codes.items()))}


@dataclass
class Diagnosis:
    """The diagnosis of one round's evaluation: per-episode labels, aggregates and rankings."""

    episodes: list[dict[str, Any]]
    overall: dict[str, Any]
    by: dict[str, dict[str, dict[str, Any]]]          # l1 / l2 / env / tool / error_code / class
    weak_envs: list[dict[str, Any]]
    weak_abilities: list[dict[str, Any]]
    analyzer: str = "rules"

    def to_dict(self) -> dict[str, Any]:
        return {"analyzer": self.analyzer, "overall": self.overall,
                "weak_envs": self.weak_envs, "weak_abilities": self.weak_abilities,
                "by": self.by, "episodes": self.episodes}


def _aggregate(labelled: Iterable[tuple[EpisodeRecord, list[str | None], str | None]]):
    by: dict[str, dict[str, _Group]] = {k: defaultdict(_Group) for k in
                                         ("l1", "l2", "env", "tool", "family", "error_code",
                                          "class")}
    overall = _Group()
    for ep, classes, cause in labelled:
        for key, name in (("l1", ep.l1), ("l2", ep.l2), ("env", ep.env_id)):
            groups = [overall, by[key][name]] if key == "l1" else [by[key][name]]
            for g in groups:
                g.episodes += 1
                g.passed += ep.passed
                g.reward += ep.reward
                g.steps += len(ep.steps)
                g.failed_steps += sum(1 for c in classes if c)
                g.classes.update([cause] if cause else [])
                g.codes.update(s.error_code for s in ep.steps if not s.ok and s.error_code)
        if cause:
            by["class"][cause].episodes += 1
        for step, c in zip(ep.steps, classes, strict=True):
            for g in (by["tool"][step.tool], by["family"][family_of(step.tool)]):
                g.steps += 1
                g.failed_steps += bool(c)
                g.classes.update([c] if c else [])
                g.codes.update([step.error_code] if not step.ok and step.error_code else [])
            if not step.ok and step.error_code:
                by["error_code"][step.error_code].steps += 1
                by["error_code"][step.error_code].classes.update([c] if c else [])
    return overall, by


def _weak_envs(by_env: Mapping[str, _Group], by_tool_env: Mapping[str, Counter]
               ) -> list[dict[str, Any]]:
    rows = []
    for env_id, g in by_env.items():
        d = g.to_dict()
        if d["success"] >= 1.0 and not g.failed_steps:
            continue
        score = round((1 - d["success"]) + 0.5 * d["step_error_rate"], 4)
        rows.append({"env_id": env_id, "weakness": score, **d,
                     "failed_tools": dict(by_tool_env.get(env_id, Counter()).most_common())})
    # Equal weakness: the environment with more evidence (failed episodes, then failed steps,
    # then episodes seen) ranks first; the id only orders what the evidence cannot.
    rows.sort(key=lambda r: (-r["weakness"], -(r["episodes"] - r["passed"]), -r["failed_steps"],
                             -r["episodes"], r["env_id"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows


def _weak_abilities(by_family: Mapping[str, _Group]) -> list[dict[str, Any]]:
    rows = [{"family": name, **g.to_dict()} for name, g in by_family.items()
            if g.failed_steps]
    rows.sort(key=lambda r: (-r["step_error_rate"], -r["failed_steps"], -r["steps"],
                             r["family"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows


def diagnose(episodes: Sequence[EpisodeRecord], facts: Mapping[str, EnvFacts]) -> Diagnosis:
    """Classify, aggregate and rank. ``facts`` maps environment ids to :class:`EnvFacts`."""
    labelled = []
    per_episode = []
    tool_env: dict[str, Counter] = defaultdict(Counter)
    for ep in episodes:
        f = facts.get(ep.env_id, EnvFacts())
        classes = step_classes(ep, f)
        cause = classify_episode(ep, classes, f)
        labelled.append((ep, classes, cause))
        for step, c in zip(ep.steps, classes, strict=True):
            if c:
                tool_env[ep.env_id][step.tool] += 1
        per_episode.append({"env_id": ep.env_id, "task_id": ep.task_id, "passed": ep.passed,
                            "reward": ep.reward, "cause": cause,
                            "steps": [{"tool": s.tool, "ok": s.ok, "code": s.error_code,
                                       "class": c} for s, c in zip(ep.steps, classes,
                                                                   strict=True)]})
    overall, by = _aggregate(labelled)
    table = {key: {name: g.to_dict() for name, g in sorted(groups.items())}
             for key, groups in by.items()}
    return Diagnosis(per_episode, overall.to_dict(), table, _weak_envs(by["env"], tool_env),
                     _weak_abilities(by["family"]))

"""An optional LLM judge for a release question's ``success_criteria``.

The deterministic verifier (:mod:`.tasks`) scores the tool chain and the answer; the release's
success criteria are sentences ("the final response lists the 3 most recent headlines") that
need a reader. Where an OpenAI-compatible endpoint is configured, :func:`judge_criteria` asks a
model to grade each criterion against the agent's answer and calls, and returns one verdict per
criterion. It is reported on its own, next to the verifier's components, and never changes the
reward: a verifier must not read the network.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agentworld.servers.chat_client import chat_completion

from ..tasks import Step

__all__ = ["CriterionVerdict", "JudgeVerdict", "JudgeError", "judge_criteria"]

_SYSTEM = (
    "You grade an AI agent's work against success criteria. You get the user's task, the "
    "agent's tool calls with their results, and its final answer. For every numbered "
    "criterion decide whether it is met, using only that evidence. Reply with JSON only: "
    '{"criteria": [{"index": 1, "met": true, "reason": "..."}]}')
_MAX_EVIDENCE = 12_000


class JudgeError(Exception):
    """The endpoint could not be reached or gave no usable verdict."""


@dataclass(frozen=True)
class CriterionVerdict:
    criterion: str
    met: bool
    reason: str = ""


@dataclass(frozen=True)
class JudgeVerdict:
    criteria: list[CriterionVerdict] = field(default_factory=list)

    @property
    def share_met(self) -> float:
        return sum(c.met for c in self.criteria) / len(self.criteria) if self.criteria else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"share_met": self.share_met, "criteria": [asdict(c) for c in self.criteria]}


def _evidence(task: str, answer: str | None, trajectory: Sequence[Step],
              criteria: Sequence[str]) -> str:
    calls = [{"tool": s.tool, "arguments": s.arguments, "ok": s.ok, "result": s.output}
             for s in trajectory]
    text = json.dumps(calls, ensure_ascii=False, default=str)[:_MAX_EVIDENCE]
    numbered = "\n".join(f"{i}. {c}" for i, c in enumerate(criteria, start=1))
    return (f"Task:\n{task}\n\nTool calls:\n{text}\n\nFinal answer:\n{answer or '(none)'}\n\n"
            f"Criteria:\n{numbered}")


def _parse(content: str, criteria: Sequence[str]) -> JudgeVerdict:
    found = re.search(r"\{.*\}", content, re.DOTALL)
    try:
        rows = json.loads(found.group(0))["criteria"] if found else None
    except (ValueError, KeyError, TypeError):
        rows = None
    if not isinstance(rows, list):
        raise JudgeError("the judge's reply holds no criteria list")
    by_index = {r.get("index"): r for r in rows if isinstance(r, dict)}
    return JudgeVerdict([CriterionVerdict(c, by_index.get(i, {}).get("met") is True,
                                          str(by_index.get(i, {}).get("reason", ""))[:500])
                         for i, c in enumerate(criteria, start=1)])


def judge_criteria(task: str, criteria: Sequence[str], answer: str | None,
                   trajectory: Sequence[Step], *, endpoint: str, model: str,
                   api_key: str | None = None, timeout: float = 60.0) -> JudgeVerdict:
    """Grade each criterion with the model behind ``endpoint`` (an OpenAI-compatible base URL,
    e.g. ``http://127.0.0.1:8000/v1``). A criterion the reply does not mention counts as not
    met. Raises JudgeError when the endpoint fails or its reply cannot be read."""
    if not criteria:
        return JudgeVerdict()
    messages = [{"role": "system", "content": _SYSTEM},
                {"role": "user", "content": _evidence(task, answer, trajectory, criteria)}]
    try:
        content = chat_completion(endpoint, model, messages, api_key=api_key, timeout=timeout)
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise JudgeError(f"the judge at {endpoint} failed: {exc}") from exc
    return _parse(str(content), criteria)

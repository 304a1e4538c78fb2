"""The optional LLM judge of the statements the claim reader could not decide.

The deterministic reader (:mod:`.facts`) decides what the state plainly confirms or
contradicts, and lists the rest in the verdict's ``notes["undecided"]`` ("Refunded $2,795 in
total", a number it cannot place). Where an OpenAI-compatible endpoint is configured, this judge
asks a model whether each of those statements is true given the calls the agent made and what
they returned. Its grades are reported beside the verdict and never change the reward: a reward
must not depend on the network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentworld.servers.imported.judge import JudgeError, judge_criteria
from agentworld.servers.tasks import Step

__all__ = ["ClaimsJudge"]

_CRITERION = ('This statement of the final answer is true according to the tool results: "{}"')


@dataclass(frozen=True)
class ClaimsJudge:
    """A model behind ``endpoint`` (an OpenAI-compatible base URL such as
    ``http://127.0.0.1:8000/v1``) that grades undecided statements."""

    endpoint: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0

    def grade(self, prompt: str, answer: str | None, statements: Sequence[str],
              trajectory: Sequence[Step]) -> dict[str, Any]:
        """``{"statements": [{"statement", "supported", "reason"}], "share_supported"}``, or
        ``{"error": ...}`` when the endpoint fails; ``{}`` when there is nothing to grade."""
        if not statements:
            return {}
        criteria = [_CRITERION.format(s) for s in statements]
        try:
            verdict = judge_criteria(prompt, criteria, answer, trajectory,
                                     endpoint=self.endpoint, model=self.model,
                                     api_key=self.api_key, timeout=self.timeout)
        except JudgeError as exc:
            return {"error": str(exc)}
        graded = [{"statement": s, "supported": c.met, "reason": c.reason}
                  for s, c in zip(statements, verdict.criteria, strict=True)]
        return {"statements": graded, "share_supported": verdict.share_met}

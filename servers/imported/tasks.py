"""The release's own questions as tasks, scored by an answer-match heuristic.

The release grades with a rubric meant for an LLM judge; we keep the rubric in the task's
metadata and score only what can be checked without one: whether the agent's final answer
matches the reference answer after normalization (case, spacing, punctuation, number format),
or contains it as a whole phrase. That is a heuristic, named as one (``kind="answer-match"``):
an answer that is right but worded differently scores 0. With no answer (the untouched state)
it always scores 0.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ..tasks import Task, Verdict, VerifierInput

__all__ = ["normalize_answer", "answer_match", "question_tasks"]

_NUMBER = re.compile(r"^[-+]?[$€£]?\d[\d,]*(\.\d+)?%?$")


def normalize_answer(text: str) -> str:
    """Case-folded, NFKC, single-spaced, edge punctuation dropped, numbers canonical."""
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    text = re.sub(r"\s+", " ", text).strip().strip(".,;:!?\"'`()[]{} ")
    if _NUMBER.match(text):
        digits = re.sub(r"[$€£,%+]", "", text)
        try:
            value = float(digits)
        except ValueError:
            return text
        return str(int(value)) if value.is_integer() else repr(value)
    return text


def answer_match(reference: str) -> Any:
    """A verifier: 1.0 when the normalized answer equals, or contains, the normalized reference."""
    expected = normalize_answer(reference)

    def verify(run: VerifierInput) -> Verdict:
        if run.answer is None or not expected:
            return Verdict.from_checks({"answer matches": False})
        got = normalize_answer(run.answer)
        contained = re.search(rf"(?<!\w){re.escape(expected)}(?!\w)", got) is not None
        return Verdict.from_checks({"answer matches": got == expected or contained})

    return verify


def question_tasks(env_id: str, questions: list[dict[str, Any]]) -> tuple[Task, ...]:
    return tuple(
        Task(id=f"question-{i + 1}", env_id=env_id, prompt=q["task"],
             verifier=answer_match(q["reference_answer"]),
             reference_answer=q["reference_answer"], kind="answer-match",
             metadata={"source": "release question", "grading_rubric": q.get("grading_rubric"),
                       "reference_answer": q["reference_answer"]})
        for i, q in enumerate(questions))

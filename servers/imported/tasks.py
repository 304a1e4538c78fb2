"""The release's own questions as tasks, with a deterministic verifier.

Each release question carries ``grading_rubric = {success_criteria, verified_tool_chain}``.
The verifier scores two parts, each reported as a component of the verdict:

* **tool chain**: the chain's tools were called, in its order, by calls that succeeded and
  whose arguments agree with the chain's on the tool's required parameters (after
  normalisation: case, spacing, number format). The component is the share of the chain
  matched.
* **answer**: where the reference answer is a value, the agent's answer must equal or contain
  it after normalisation. Where it is raw tool output (a JSON object or list, as in many
  release questions), it is matched as data: the agent's answer, or the output of one of its
  calls, must equal it apart from clock stamps and minted ids (:mod:`.compare`).

The score is the mean of the parts present; the task counts as solved when every part is
fully met (the reward follows from both, as for every verifier). ``success_criteria`` need a
reader: :mod:`.judge` grades them with an LLM where one is configured, reported separately,
never folded into this deterministic reward. With no answer and no calls (the untouched
state) every part scores 0.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from ..tasks import Step, Task, Verdict, VerifierInput
from .compare import by_design, differences

__all__ = ["normalize_answer", "answer_match", "chain_match", "question_tasks",
           "question_verifier", "reference_data"]

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


def _normal_value(value: Any) -> str:
    if isinstance(value, str):
        return normalize_answer(value)
    return normalize_answer(json.dumps(value, sort_keys=True, ensure_ascii=False))


def reference_data(reference: str) -> Any:
    """The reference answer as data when it is a JSON object or list, else None."""
    text = reference.strip()
    if text[:1] not in ("{", "["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def _value_matches(expected: str, answer: str | None) -> bool:
    if answer is None or not expected:
        return False
    got = normalize_answer(answer)
    return got == expected or re.search(
        rf"(?<!\w){re.escape(expected)}(?!\w)", got) is not None


def _unwrapped(output: dict[str, Any]) -> Any:
    # A release tool's list or scalar reaches the trajectory wrapped as {"result": value}.
    return output["result"] if set(output) == {"result"} else output


def _data_matches(expected: Any, answer: str | None, trajectory: Sequence[Step]) -> bool:
    candidates = [_unwrapped(s.output) for s in trajectory if s.ok]
    if answer is not None:
        found = reference_data(answer)
        if found is not None:
            candidates.append(found)
    return any(by_design(differences(expected, c)) for c in candidates)


def _verdict(score: float, passed: bool, parts: dict[str, float]) -> Verdict:
    make = getattr(Verdict, "of", None)  # the reward mode's constructor, where there is one
    if make is not None:
        return make(score, passed, parts)
    return Verdict(reward=score, passed=passed, components=parts)


def answer_match(reference: str) -> Any:
    """A verifier of the answer alone (value or data, see the module docs)."""
    data, expected = reference_data(reference), normalize_answer(reference)

    def verify(run: VerifierInput) -> Verdict:
        ok = (_data_matches(data, run.answer, run.trajectory) if data is not None
              else _value_matches(expected, run.answer))
        return _verdict(float(ok), ok, {"answer": float(ok)})

    return verify


def chain_match(chain: list[tuple[str, dict[str, Any]]], required: dict[str, list[str]],
                trajectory: Sequence[Step]) -> float:
    """The share of ``chain`` (tool, arguments) matched in order by successful calls that
    agree on the tool's required parameters."""
    if not chain:
        return 1.0
    position = 0
    for step in trajectory:
        if position == len(chain):
            break
        tool, args = chain[position]
        if not step.ok or step.tool != tool:
            continue
        keys = [k for k in required.get(tool, ()) if k in args]
        if all(k in step.arguments and _normal_value(step.arguments[k]) == _normal_value(args[k])
               for k in keys):
            position += 1
    return position / len(chain)


def question_verifier(reference: str, chain: list[tuple[str, dict[str, Any]]],
                      required: dict[str, list[str]]) -> Any:
    """The verifier of one release question (see the module docs)."""
    answer = answer_match(reference)

    def verify(run: VerifierInput) -> Verdict:
        parts = {"answer": answer(run).components["answer"]}
        if chain:
            parts["tool chain"] = chain_match(chain, required, run.trajectory)
        if run.answer is None and not run.trajectory:
            parts = dict.fromkeys(parts, 0.0)
        score = sum(parts.values()) / len(parts)
        return _verdict(score, all(v == 1.0 for v in parts.values()), parts)

    return verify


def _chain(rubric: Any, names: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    steps = rubric.get("verified_tool_chain") if isinstance(rubric, dict) else None
    out = []
    for step in steps or []:
        if isinstance(step, dict) and isinstance(step.get("tool"), str):
            args = step.get("args", step.get("arguments"))
            out.append((names.get(step["tool"], step["tool"]),
                        args if isinstance(args, dict) else {}))
    return out


def question_tasks(env_id: str, questions: list[dict[str, Any]],
                   tools: Sequence[dict[str, Any]] = ()) -> tuple[Task, ...]:
    """Every release question as a task. ``tools`` are the imported tool records (for the
    required parameters, and the names of renamed tools)."""
    names = {t.get("release_name", t["name"]): t["name"] for t in tools}
    required = {t["name"]: list(t["input_schema"].get("required", [])) for t in tools}
    out = []
    for i, q in enumerate(questions):
        rubric = q.get("grading_rubric")
        chain = _chain(rubric, names)
        criteria = rubric.get("success_criteria") if isinstance(rubric, dict) else None
        out.append(Task(
            id=f"question-{i + 1}", env_id=env_id, prompt=q["task"],
            verifier=question_verifier(q["reference_answer"], chain, required),
            reference_calls=tuple(chain), reference_answer=q["reference_answer"],
            max_steps=max(15, 3 * len(chain) + 5), kind="release-question",
            metadata={"source": "release question", "grading_rubric": rubric,
                      "success_criteria": criteria or [],
                      "answer_is_data": reference_data(q["reference_answer"]) is not None}))
    return tuple(out)

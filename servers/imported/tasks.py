"""The release's own questions as tasks, with a deterministic verifier.

Each release question carries ``grading_rubric = {success_criteria, verified_tool_chain}``.
The verifier scores two parts, each reported as a component of the verdict:

* **tool chain**: the chain's tools were called, in its order, by calls that succeeded and
  whose arguments agree with the chain's on the tool's required parameters and on every option
  the question itself states (a permission level, a status: "grant EDIT access" is not met by
  VIEW), after normalisation (case, spacing, number format). The component is the share of the
  chain matched.
* **answer**: the agent's own answer is read, never a call's output in its place. Where the
  reference answer is a value, the answer must equal or contain it after normalisation, and
  must not hedge ("about 4", "probably Ada"). Where it is raw tool output (a JSON object or
  list, as in many release questions), the answer must state what that data names: every
  name, title, status and the like in it (most of them when there are more than ten), in any
  wording or as the data itself. A wrong answer after the right calls scores 0.

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

from ..taskgen.reply.text import hedges
from ..tasks import Step, Task, Verdict, VerifierInput
from .compare import by_design, differences

__all__ = ["normalize_answer", "answer_match", "chain_match", "question_tasks",
           "question_verifier", "reference_data", "data_facts", "stated_options"]

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
    if hedges(answer):
        return False
    got = normalize_answer(answer)
    return got == expected or re.search(
        rf"(?<!\w){re.escape(expected)}(?!\w)", got) is not None


# Keys whose values name a record: what a person answering would say; then the keys that place
# or qualify one, for data that names nothing.
_NAMING = frozenset({"name", "title", "label", "full_name", "display_name", "subject",
                     "headline", "author", "artist", "company", "symbol"})
_QUALIFYING = frozenset({"city", "country", "status", "state", "category", "type", "role",
                         "code"})
_ID_KEY = re.compile(r"(^|_)(id|uuid|key|token|hash|sha|url|uri|href|path)$", re.I)
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}")


def data_facts(data: Any) -> list[str]:
    """What a data answer names: the naming values of the data (or, when it has none, the
    values that place or qualify its records, else its short text values), never ids, links
    or clock stamps."""
    naming: list[str] = []
    qualifying: list[str] = []
    short: list[str] = []

    def walk(value: Any, key: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and 2 <= len(value.strip()) <= 80 and \
                not _ID_KEY.search(key) and not _STAMP.match(value):
            key = key.lower()
            (naming if key in _NAMING else qualifying if key in _QUALIFYING
             else short).append(value.strip())

    walk(data, "")
    found = naming or qualifying or [s for s in short if len(s) <= 40]
    return list(dict.fromkeys(found))


def _data_matches(expected: Any, answer: str | None) -> bool:
    """Whether the answer states what the reference data names (see the module docs)."""
    if not answer:
        return False
    facts = data_facts(expected)
    if not facts:
        found = reference_data(answer)
        return found is not None and by_design(differences(expected, found))
    said = normalize_answer(answer)
    hits = sum(1 for f in facts if re.search(
        rf"(?<!\w){re.escape(normalize_answer(f))}(?!\w)", said))
    return hits == len(facts) if len(facts) <= 10 else hits >= 0.8 * len(facts)


def _verdict(score: float, passed: bool, parts: dict[str, float]) -> Verdict:
    make = getattr(Verdict, "of", None)  # the reward mode's constructor, where there is one
    if make is not None:
        return make(score, passed, parts)
    return Verdict(reward=score, passed=passed, components=parts)


def answer_match(reference: str) -> Any:
    """A verifier of the answer alone (value or data, see the module docs)."""
    data, expected = reference_data(reference), normalize_answer(reference)

    def verify(run: VerifierInput) -> Verdict:
        ok = (_data_matches(data, run.answer) if data is not None
              else _value_matches(expected, run.answer))
        return _verdict(float(ok), ok, {"answer": float(ok)})

    return verify


def stated_options(chain: list[tuple[str, dict[str, Any]]], required: dict[str, list[str]],
                   question: str) -> dict[int, list[str]]:
    """Per chain step, the optional arguments whose value the question states ("grant EDIT
    access", "only the archived ones"): those are part of what it asks."""
    text = normalize_answer(question)
    out: dict[int, list[str]] = {}
    for i, (tool, args) in enumerate(chain):
        for key, value in args.items():
            if key in required.get(tool, ()) or isinstance(value, dict | list) or value is None:
                continue
            said = normalize_answer(str(value).replace("_", " "))
            if len(said) >= 2 and re.search(rf"(?<!\w){re.escape(said)}(?!\w)", text):
                out.setdefault(i, []).append(key)
    return out


def chain_match(chain: list[tuple[str, dict[str, Any]]], required: dict[str, list[str]],
                trajectory: Sequence[Step], stated: dict[int, list[str]] | None = None
                ) -> float:
    """The share of ``chain`` (tool, arguments) matched in order by successful calls that
    agree on the tool's required parameters and on the options the question states
    (``stated``, by chain position)."""
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
        keys += [k for k in (stated or {}).get(position, ()) if k not in keys]
        if all(k in step.arguments and _normal_value(step.arguments[k]) == _normal_value(args[k])
               for k in keys):
            position += 1
    return position / len(chain)


def question_verifier(reference: str, chain: list[tuple[str, dict[str, Any]]],
                      required: dict[str, list[str]], question: str = "") -> Any:
    """The verifier of one release question (see the module docs)."""
    answer = answer_match(reference)
    stated = stated_options(chain, required, question)

    def verify(run: VerifierInput) -> Verdict:
        parts = {"answer": answer(run).components["answer"]}
        if chain:
            parts["tool chain"] = chain_match(chain, required, run.trajectory, stated)
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
            verifier=question_verifier(q["reference_answer"], chain, required, q["task"]),
            reference_calls=tuple(chain), reference_answer=q["reference_answer"],
            max_steps=max(15, 3 * len(chain) + 5), kind="release-question",
            metadata={"source": "release question", "grading_rubric": rubric,
                      "success_criteria": criteria or [],
                      "answer_is_data": reference_data(q["reference_answer"]) is not None}))
    return tuple(out)

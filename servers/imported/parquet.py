"""The release's combined question file, ``environment_mix/questions.parquet``.

Its columns follow the verl/OpenRLHF convention: ``prompt`` (a chat message list, or text),
``ability``, ``data_source``, ``reward_model`` (``{style, ground_truth, ...}``) and
``extra_info`` (what the row was built from). The readable JSON files carry the same tasks
as ``{task, reference_answer, grading_rubric}``; this module turns a row back into that shape.
It is read only for environments that have no JSON file, and only when pyarrow is installed
(``pip install 'agentworld[train]'``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = ["ParquetQuestions", "row_question"]

_ENV_ID = re.compile(r"(?<!\d)(\d{7})(?!\d)")


def _decoded(value: Any) -> Any:
    """Nested columns are sometimes stored as JSON text."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _prompt_text(prompt: Any) -> str:
    prompt = _decoded(prompt)
    if isinstance(prompt, list):
        users = [m.get("content") for m in prompt if isinstance(m, dict)
                 and m.get("role") == "user" and m.get("content")]
        return str(users[-1]) if users else ""
    return str(prompt or "")


def _env_of(row: dict[str, Any], extra: dict[str, Any]) -> str | None:
    for key in ("env_id", "environment_id", "env"):
        if extra.get(key) is not None:
            return str(extra[key]).zfill(7)
    found = _ENV_ID.search(str(row.get("data_source") or ""))
    return found.group(1) if found else None


def row_question(row: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """``(environment id, {task, reference_answer, grading_rubric})`` of one row; the question
    is None when the row lacks a task or an answer."""
    extra = _decoded(row.get("extra_info"))
    extra = extra if isinstance(extra, dict) else {}
    reward = _decoded(row.get("reward_model"))
    reward = reward if isinstance(reward, dict) else {}
    task = extra.get("task") or _prompt_text(row.get("prompt"))
    answer = next((v for v in (reward.get("ground_truth"), extra.get("reference_answer"))
                   if v is not None), None)
    rubric = next((_decoded(v) for v in (extra.get("grading_rubric"),
                                         reward.get("grading_rubric"), reward.get("rubric"))
                   if v is not None), None)
    if not task or answer is None:
        return _env_of(row, extra), None
    return _env_of(row, extra), {"task": task, "reference_answer": _decoded(answer),
                                 "grading_rubric": rubric}


class ParquetQuestions:
    """The questions of ``questions.parquet``, grouped by environment id, read on first use."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._by_env: dict[str, list[dict[str, Any]]] | None = None
        self.error: str | None = None

    @classmethod
    def beside(cls, mix: Path) -> ParquetQuestions | None:
        """The file of a release's ``environment_mix/`` folder, if it has one."""
        path = mix / "questions.parquet"
        return cls(path) if path.is_file() else None

    def _load(self) -> dict[str, list[dict[str, Any]]]:
        if self._by_env is None:
            self._by_env = {}
            try:
                import pyarrow.parquet as pq

                rows = pq.read_table(self.path).to_pylist()
            except ImportError:
                self.error = "questions.parquet needs pyarrow (pip install 'agentworld[train]')"
                return self._by_env
            except Exception as exc:  # a truncated download or a Git LFS pointer
                self.error = f"questions.parquet is unreadable: {exc}"[:300]
                return self._by_env
            for row in rows:
                env_id, question = row_question(row)
                if env_id and question:
                    self._by_env.setdefault(env_id, []).append(question)
        return self._by_env

    def tasks(self, number: str) -> list[dict[str, Any]] | None:
        """The environment's questions, or None when the file has none for it."""
        return self._load().get(number)

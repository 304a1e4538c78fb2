"""The tasks a run trains or evaluates on, and their dataset rows.

Tasks come from a catalog: an environment's own tasks plus, when the catalog has a task store,
its generated ones. A task's split is its ``metadata["split"]`` (generated tasks carry one);
tasks without one count as ``train``. Rows have the exported dataset's schema
(``servers/taskgen/export.py``), plus an ``environment`` column that routes TRL's
multi-environment ``environment_factory``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers import Catalog

from .errors import NoTasksError
from .prompting import chat_messages

__all__ = ["TaskRef", "collect_tasks", "task_rows", "label_of"]


@dataclass(frozen=True)
class TaskRef:
    """One task as the trainer sees it: where it runs, what it says, how it is solved."""

    env_id: str
    task_id: str
    prompt: str
    env_title: str
    category: str
    tool_names: tuple[str, ...]
    split: str = "train"
    reference_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    reference_answer: str | None = None
    max_steps: int = 30
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def label(self) -> str:
        """The dataset label: JSON ``{env_id, task_id}`` (what OpenRLHF's agent receives)."""
        return json.dumps({"env_id": self.env_id, "task_id": self.task_id})

    def messages(self) -> list[dict[str, str]]:
        return chat_messages(env_title=self.env_title, tool_names=self.tool_names,
                             task_prompt=self.prompt)


def label_of(label: Any) -> tuple[str, str]:
    """``(env_id, task_id)`` from a dataset label (a JSON string or a dict).

    Raises:
        ValueError: the label does not name an environment and a task.
    """
    if isinstance(label, str):
        try:
            label = json.loads(label)
        except json.JSONDecodeError as exc:
            raise ValueError(f"label is not JSON: {exc.msg}") from None
    if not isinstance(label, dict) or not label.get("env_id") or not label.get("task_id"):
        raise ValueError("label must be JSON with env_id and task_id")
    return str(label["env_id"]), str(label["task_id"])


def collect_tasks(catalog: Catalog, env_ids: Iterable[str], *, splits: Sequence[str] | None = None,
                  limit_per_env: int | None = None) -> list[TaskRef]:
    """The tasks of ``env_ids`` in ``splits`` (all splits when None), in a stable order.

    Raises:
        NoTasksError: no environment named has a task in those splits.
        UnknownEnvironmentError: an id is not in the catalog.
    """
    refs: list[TaskRef] = []
    ids = list(env_ids)
    for env_id in ids:
        env = catalog.load(env_id)
        tool_names = tuple(env.tools.names())
        taken = 0
        for task in env.tasks:
            split = str(task.metadata.get("split") or "train")
            if splits is not None and split not in splits:
                continue
            if limit_per_env is not None and taken >= limit_per_env:
                break
            taken += 1
            refs.append(TaskRef(
                env_id=env.id, task_id=task.id, prompt=task.prompt, env_title=env.manifest.title,
                category=env.manifest.taxonomy.l1, tool_names=tool_names, split=split,
                reference_calls=tuple((n, dict(a)) for n, a in task.reference_calls),
                reference_answer=task.reference_answer, max_steps=task.max_steps,
                metadata={k: v for k, v in task.metadata.items() if k != "rubric"}))
    if not refs:
        raise NoTasksError(ids, list(splits) if splits is not None else None)
    return refs


def task_rows(tasks: Iterable[TaskRef]) -> list[dict[str, Any]]:
    """Dataset rows: ``prompt`` (chat messages), ``label`` (JSON), ``environment``."""
    return [{"prompt": t.messages(), "label": t.label, "environment": t.env_id,
             "data_source": f"agentworld/{t.env_id}", "split": t.split} for t in tasks]

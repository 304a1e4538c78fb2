"""The tasks a run trains or evaluates on, and their dataset rows.

Tasks come from a catalog: an environment's own tasks plus, when the catalog has a task store,
its generated ones. A task's split is its ``metadata["split"]`` (generated tasks carry one);
tasks without one count as ``train``. Rows have the exported dataset's schema
(``servers/taskgen/export.py``), plus an ``environment`` column that routes TRL's
multi-environment ``environment_factory``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers import Catalog
from agentworld.servers.tool_views import FULL, apply_view, parse_view, task_tool_order

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
    tool_view: str = "full"             # how its tools are shown (servers/tool_views.py)
    relevant_tools: tuple[str, ...] = ()   # every tool, most relevant first (as the hub says)

    def shown_tools(self, tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The environment's MCP ``tools`` as this task shows them."""
        return apply_view(tools, self.tool_view, relevant=self.relevant_tools or None)

    @property
    def env_key(self) -> str:
        """The TRL environment this task's rows route to: one per environment and shown tool
        set, since TRL renders an environment class's methods as its tools."""
        if parse_view(self.tool_view) == FULL:
            return self.env_id
        return f"{self.env_id}@{self.tool_view}:{'+'.join(self.tool_names)}"

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
                  limit_per_env: int | None = None, tool_view: str = "full") -> list[TaskRef]:
    """The tasks of ``env_ids`` in ``splits`` (all splits when None), in a stable order, each
    showing its tools in ``tool_view``.

    Raises:
        NoTasksError: no environment named has a task in those splits.
        UnknownEnvironmentError: an id is not in the catalog.
        ToolViewError: ``tool_view`` cannot be read.
    """
    refs: list[TaskRef] = []
    ids = list(env_ids)
    view = str(parse_view(tool_view))
    for env_id in ids:
        env = catalog.load(env_id)
        tools = env.tool_list()
        taken = 0
        for task in env.tasks:
            split = str(task.metadata.get("split") or "train")
            if splits is not None and split not in splits:
                continue
            if limit_per_env is not None and taken >= limit_per_env:
                break
            taken += 1
            order = tuple(task_tool_order(env, task))
            shown = apply_view(tools, view, relevant=order)
            refs.append(TaskRef(
                env_id=env.id, task_id=task.id, prompt=task.prompt, env_title=env.manifest.title,
                category=env.manifest.taxonomy.l1, tool_names=tuple(t["name"] for t in shown),
                split=split, reference_calls=tuple((n, dict(a)) for n, a in task.reference_calls),
                reference_answer=task.reference_answer, max_steps=task.max_steps,
                metadata={k: v for k, v in task.metadata.items() if k != "rubric"},
                tool_view=view, relevant_tools=order))
    if not refs:
        raise NoTasksError(ids, list(splits) if splits is not None else None)
    return refs


def task_rows(tasks: Iterable[TaskRef]) -> list[dict[str, Any]]:
    """Dataset rows: ``prompt`` (chat messages), ``label`` (JSON), ``environment``."""
    return [{"prompt": t.messages(), "label": t.label, "environment": t.env_key,
             "data_source": f"agentworld/{t.env_id}", "split": t.split} for t in tasks]

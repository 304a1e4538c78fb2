"""Hand-written programmatic tasks for the three hand-built reference environments.

Each builder queries its environment's template database for the situation it asks about, so
the tasks (targets, answers, reference solutions) follow the seed data if it changes.
"""

from __future__ import annotations

from collections.abc import Callable

from ..record import TaskRecord
from .airline import airline_tasks
from .github import github_tasks
from .notion import notion_tasks

__all__ = ["REFERENCE_TASKS"]

REFERENCE_TASKS: dict[str, Callable[[], list[TaskRecord]]] = {
    "airline": airline_tasks,
    "github": github_tasks,
    "notion": notion_tasks,
}

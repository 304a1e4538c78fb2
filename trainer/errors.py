"""The trainer's errors: one base class, structured attributes."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["TrainerError", "MissingDependencyError", "NoTasksError", "UnknownPolicyError",
           "LaunchError"]


class TrainerError(Exception):
    """Base class of every error the trainer raises on purpose."""


class MissingDependencyError(TrainerError):
    """A package of an optional extra is not installed."""

    def __init__(self, package: str, extra: str = "train") -> None:
        super().__init__(f"{package} is not installed: pip install 'agentworld[{extra}]'")
        self.package, self.extra = package, extra


class NoTasksError(TrainerError):
    """The environments named have no task in the splits asked for."""

    def __init__(self, env_ids: Sequence[str], splits: Sequence[str] | None) -> None:
        where = ", ".join(env_ids) or "(no environment)"
        super().__init__(f"no tasks in {where}" + (f" for splits {list(splits)}" if splits else ""))
        self.env_ids, self.splits = list(env_ids), splits


class UnknownPolicyError(TrainerError):
    """A policy spec names no known policy."""

    def __init__(self, spec: str) -> None:
        super().__init__(f"unknown policy {spec!r} (oracle, random, noop, hf:PATH, "
                         "openai:URL#MODEL)")
        self.spec = spec


class LaunchError(TrainerError, RuntimeError):
    """A training run cannot start: its hub is not configured or does not answer."""

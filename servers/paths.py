"""Where agentworld keeps what it builds on this machine: templates and generated task sets.

Read once by the process-wide defaults (``default_catalog``, the CLI); library constructors take
explicit directories.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_root", "template_dir", "task_dir", "import_dir"]


def cache_root() -> Path:
    """$AGENTWORLD_CACHE_DIR, else agentworld's folder in the user's cache."""
    explicit = os.environ.get("AGENTWORLD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "agentworld"


def template_dir() -> Path:
    return cache_root() / "templates"


def task_dir() -> Path:
    return cache_root() / "tasks"


def import_dir() -> Path:
    """Where ``agentworld import`` writes: $AGENTWORLD_IMPORT_DIR, else ~/.agentworld/imported."""
    return Path(os.environ.get("AGENTWORLD_IMPORT_DIR") or "~/.agentworld/imported").expanduser()

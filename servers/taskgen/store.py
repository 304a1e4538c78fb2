"""Generated task sets kept on disk, one JSON Lines file per environment.

Generation is resumable: an environment whose file exists is not generated again. A file is
written whole to a temporary name and renamed, so an interrupted run leaves no partial set.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .generate import TASKGEN_VERSION, GenerationReport
from .record import TaskRecord

__all__ = ["TaskStore"]


class TaskStore:
    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def _path(self, env_id: str) -> Path:
        if "/" in env_id or env_id.startswith("."):
            raise ValueError(f"unsafe environment id {env_id!r}")
        return self.directory / f"{env_id}.jsonl"

    def has(self, env_id: str) -> bool:
        """Whether a set made by this generator version is stored."""
        return self.report(env_id) is not None

    def load(self, env_id: str) -> list[TaskRecord] | None:
        path = self._path(env_id)
        if not path.exists():
            return None
        lines = path.read_text(encoding="utf-8").splitlines()
        if not lines or json.loads(lines[0])["report"].get("version") != TASKGEN_VERSION:
            return None  # made by an older generator: generate again
        return [TaskRecord.from_dict(json.loads(line)) for line in lines[1:] if line]

    def report(self, env_id: str) -> dict[str, Any] | None:
        path = self._path(env_id)
        if not path.exists():
            return None
        with open(path, encoding="utf-8") as f:
            report = json.loads(f.readline())["report"]
        return report if report.get("version") == TASKGEN_VERSION else None

    def save(self, env_id: str, records: list[TaskRecord], report: GenerationReport) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".jsonl")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps({"report": report.to_dict()}) + "\n")
            for record in records:
                f.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
        os.replace(tmp, self._path(env_id))

    def env_ids(self) -> list[str]:
        return sorted(p.stem for p in self.directory.glob("*.jsonl"))

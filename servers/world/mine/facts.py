"""The pinned snapshot: facts about every mined package, one JSON object per line.

It holds facts only: the package's name, version, archive file and sha256, its declared licence
name, and its tools' names and parameters (name, type, required, enum, element type), plus what
the miner derived from them (duplicate, fit, category, and which of the project's own taxonomy
keywords the package's summary contains). Descriptions, docstrings and code of the packages'
authors are not stored: ``read_descriptions`` reads them from the cached archive at build time,
after checking its hash, with the package named for attribution.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .archive import read_archive
from .errors import SnapshotError
from .extract import extract_contents

__all__ = ["PackageRecord", "write_snapshot", "load_snapshot", "read_descriptions",
           "DEFAULT_SNAPSHOT", "SNAPSHOT_VERSION"]

DEFAULT_SNAPSHOT = Path(__file__).parent / "data" / "snapshot.jsonl.gz"
SNAPSHOT_VERSION = 1


@dataclass
class PackageRecord:
    """One candidate package and what mining it found."""

    name: str
    status: str                                  # mined, rejected (archive), failed (download)
    version: str = ""
    file: str = ""
    sha256: str = ""
    kind: str = ""                               # wheel or sdist
    licence: str = ""
    reason: str = ""                             # why rejected or failed
    tools: list[dict[str, Any]] = field(default_factory=list)
    problems: dict[str, int] = field(default_factory=dict)
    summary_terms: list[str] = field(default_factory=list)
    duplicate_of: str = ""
    fit: dict[str, Any] = field(default_factory=dict)
    selected: bool = False
    l1: str = ""
    l2: str = ""

    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.tools]

    def surface_key(self) -> tuple[str, ...]:
        """The tool surface that identifies a server across republished copies."""
        return tuple(sorted(self.tool_names()))


def write_snapshot(records: list[PackageRecord], path: str | Path = DEFAULT_SNAPSHOT) -> Path:
    """Write records sorted by name; gzip when the path ends in ``.gz``. Deterministic bytes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"snapshot_version": SNAPSHOT_VERSION, "packages": len(records)}
    lines = [json.dumps(header, sort_keys=True)]
    lines += [json.dumps(asdict(r), sort_keys=True, separators=(",", ":"))
              for r in sorted(records, key=lambda r: r.name.lower())]
    data = ("\n".join(lines) + "\n").encode()
    if path.suffix == ".gz":
        data = gzip.compress(data, mtime=0)     # mtime=0: the same records give the same file
    path.write_bytes(data)
    return path


def load_snapshot(path: str | Path = DEFAULT_SNAPSHOT) -> list[PackageRecord]:
    """Read a snapshot. Raises SnapshotError when it is missing, of another version or malformed."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode()
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        raise SnapshotError(str(path), str(exc)) from exc
    lines = text.splitlines()
    try:
        header = json.loads(lines[0]) if lines else {}
        if header.get("snapshot_version") != SNAPSHOT_VERSION:
            raise SnapshotError(str(path), f"unknown snapshot version {header!r:.80}")
        records = [PackageRecord(**json.loads(line)) for line in lines[1:] if line]
    except (ValueError, TypeError) as exc:
        raise SnapshotError(str(path), f"malformed record: {exc}") from exc
    if len(records) != header.get("packages"):
        raise SnapshotError(str(path), "record count differs from the header")
    return records


def read_descriptions(record: PackageRecord, files_dir: str | Path) -> dict[str, str]:
    """Tool descriptions read at build time from the cached archive ``record`` pins.

    Raises SnapshotError when the archive is absent or its sha256 is not the pinned one (the
    words must come from exactly the release whose facts are pinned).
    """
    path = Path(files_dir) / record.file
    if not record.file or not path.is_file():
        raise SnapshotError(str(path), f"{record.name}: archive not in the cache")
    if hashlib.sha256(path.read_bytes()).hexdigest() != record.sha256:
        raise SnapshotError(str(path), f"{record.name}: sha256 differs from the snapshot")
    surface = extract_contents(read_archive(path))
    return {t.name: t.description for t in surface.tools if t.description}

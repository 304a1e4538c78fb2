"""Candidate MCP server packages, read from a registry listing that is already on disk.

The listing is a TSV with a header row whose first columns are ``name``, ``version`` and
``month`` (the month of the latest release) and which has a ``summary`` column. Nothing here
queries a registry: the candidates come from the file.

Candidates are ordered by a hash of their name, so any prefix of the order is a fair random
sample and a longer run extends a shorter one instead of redrawing it.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import ListingError

__all__ = ["Candidate", "read_candidates", "sample_order"]

_REQUIRED = ("name", "version", "month", "summary")


@dataclass(frozen=True)
class Candidate:
    """One package name from the listing, with what the listing says about it."""

    name: str
    version: str
    month: str        # YYYY-MM of its latest release
    summary: str


def sample_order(name: str) -> str:
    """The key that orders candidates: a stable hash, independent of the listing's order."""
    return hashlib.sha256(name.lower().encode()).hexdigest()


def _rows(path: Path) -> Iterator[dict[str, str]]:
    try:
        handle = path.open(newline="", encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ListingError(str(path), exc.strerror or str(exc)) from exc
    with handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = [c for c in _REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            raise ListingError(str(path), f"missing columns: {', '.join(missing)}")
        yield from reader


def read_candidates(path: str | Path, *, contains: str = "mcp", since: str = "",
                    limit: int | None = None) -> list[Candidate]:
    """Names containing ``contains`` (case-insensitive) last released in or after ``since``.

    ``since`` is ``YYYY-MM`` (empty: any month). The result is in sample order, cut to ``limit``.
    Raises ListingError when the file is missing or lacks the expected columns.
    """
    needle = contains.lower()
    found: dict[str, Candidate] = {}
    for row in _rows(Path(path)):
        name = (row.get("name") or "").strip()
        month = (row.get("month") or "").strip()
        if not name or needle not in name.lower() or (since and month < since):
            continue
        found[name.lower()] = Candidate(name, (row.get("version") or "").strip(), month,
                                        (row.get("summary") or "").strip())
    ordered = sorted(found.values(), key=lambda c: sample_order(c.name))
    return ordered[:limit] if limit is not None else ordered

"""Republished copies of one server, found by their tool surface; one of each is kept.

The same server is often published again under another name (``iflow-mcp-<owner>-<name>``,
``mseep-<name>`` ...). Two packages are copies when their tool-name sets are equal, or when their
names are equal once a republishing prefix is removed and their tool-name sets mostly overlap
(a copy taken a release earlier or later). The original is preferred: a name without a
republishing prefix, then the fuller surface, then the shorter name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Copy", "find_copies", "base_name", "REPUBLISH_PREFIXES", "NEAR_JACCARD"]

REPUBLISH_PREFIXES = ("iflow-mcp-", "mseep-", "mcp-mirror-", "acemcp-", "mcpo-", "aimcp-",
                      "kiro-mcp-", "pulse-mcp-")
NEAR_JACCARD = 0.8
_SEP = re.compile(r"[-_.]+")


@dataclass(frozen=True)
class Copy:
    """``name`` is a copy of ``kept``; ``how`` is ``same-surface`` or ``same-base-name``."""

    name: str
    kept: str
    how: str


def _norm(name: str) -> str:
    return _SEP.sub("-", name.lower())


def base_name(name: str) -> str:
    """The package name without a republishing prefix (``mseep-foo-mcp`` -> ``foo-mcp``)."""
    norm = _norm(name)
    for prefix in REPUBLISH_PREFIXES:
        if norm.startswith(prefix) and len(norm) > len(prefix):
            return norm[len(prefix):]
    return norm


def _preference(name: str, tools: int) -> tuple:
    return (_norm(name) != base_name(name), -tools, len(name), name.lower())


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _suffixes(base: str) -> list[str]:
    """``a-b-c`` -> ``a-b-c``, ``b-c``, ``c``: the tails a republished name may keep."""
    parts = base.split("-")
    return ["-".join(parts[i:]) for i in range(len(parts))]


class _Kept:
    """The originals kept so far, indexed so a name is matched against them in O(its words)."""

    def __init__(self):
        self.by_surface: dict[frozenset, str] = {}
        self._by_base: dict[str, list[tuple[frozenset, str]]] = {}
        self._by_tail: dict[str, list[tuple[frozenset, str]]] = {}

    def add(self, name: str, surface: frozenset) -> None:
        self.by_surface[surface] = name
        base = base_name(name)
        self._by_base.setdefault(base, []).append((surface, name))
        for tail in _suffixes(base):
            self._by_tail.setdefault(tail, []).append((surface, name))

    def near(self, name: str, surface: frozenset) -> str | None:
        # iflow-mcp-<owner>-<name> keeps the owner: one base name may end with the other
        base = base_name(name)
        candidates = list(self._by_tail.get(base, []))
        for tail in _suffixes(base):
            candidates += self._by_base.get(tail, [])
        return next((kept for other, kept in candidates
                     if _jaccard(surface, other) >= NEAR_JACCARD), None)


def find_copies(surfaces: dict[str, list[str]]) -> list[Copy]:
    """Map package name -> tool names to the copies to drop. Packages with no tools are ignored."""
    ranked = sorted((n for n, t in surfaces.items() if t),
                    key=lambda n: _preference(n, len(set(surfaces[n]))))
    kept, copies = _Kept(), []
    for name in ranked:
        surface = frozenset(surfaces[name])
        if surface in kept.by_surface:
            copies.append(Copy(name, kept.by_surface[surface], "same-surface"))
        elif (original := kept.near(name, surface)) is not None:
            copies.append(Copy(name, original, "same-base-name"))
        else:
            kept.add(name, surface)
    return sorted(copies, key=lambda c: c.name.lower())

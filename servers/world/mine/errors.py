"""Errors of the miner: one base class, structured attributes."""

from __future__ import annotations

__all__ = ["MineError", "ArchiveRejected", "DownloadError", "ListingError", "SnapshotError"]


class MineError(Exception):
    """Base of every error the miner raises on purpose."""


class ListingError(MineError):
    """The candidate listing cannot be read."""

    def __init__(self, path: str, reason: str):
        self.path, self.reason = path, reason
        super().__init__(f"listing {path}: {reason}")


class DownloadError(MineError):
    """A package could not be fetched into the cache."""

    def __init__(self, name: str, reason: str):
        self.name, self.reason = name, reason
        super().__init__(f"download {name}: {reason}")


class ArchiveRejected(MineError):
    """An archive, or one of its members, is unsafe or too large to read.

    ``code`` is stable (``unsafe-path``, ``link``, ``bomb``, ``too-large``, ``bad-archive``) so the
    mining report can count the reasons.
    """

    def __init__(self, archive: str, code: str, detail: str):
        self.archive, self.code, self.detail = archive, code, detail
        super().__init__(f"{archive}: {code}: {detail}")


class SnapshotError(MineError):
    """The pinned snapshot is missing or malformed."""

    def __init__(self, path: str, reason: str):
        self.path, self.reason = path, reason
        super().__init__(f"snapshot {path}: {reason}")

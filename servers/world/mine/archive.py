"""Read the Python sources and metadata out of an untrusted wheel or sdist, safely.

Nothing is extracted to disk and nothing is run: members are read into memory, one at a time,
with caps on every size. A hostile archive is rejected whole (``ArchiveRejected``); a single
oversized or undecodable source file is skipped and reported, and the rest is still read.

- names that are absolute or climb out with ``..``: rejected (tarfile's ``data`` filter for tars,
  the same rule checked by hand for zips, whose module has no filter);
- symbolic and hard links, devices, fifos: rejected;
- bombs: a declared unpacked size over ``MAX_TOTAL_BYTES`` or a compression ratio over
  ``MAX_RATIO`` on a large member;
- a source file over ``MAX_SOURCE_BYTES`` (a 10 MB schema literal, say): skipped as ``too-large``.
"""

from __future__ import annotations

import posixpath
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .errors import ArchiveRejected

__all__ = ["ArchiveContents", "read_archive", "MAX_SOURCE_BYTES", "MAX_TOTAL_BYTES", "MAX_MEMBERS"]

MAX_SOURCE_BYTES = 2 * 1024 * 1024      # larger .py files are data, not a server's code
MAX_TOTAL_BYTES = 512 * 1024 * 1024     # declared unpacked size of the whole archive
MAX_RATIO = 200                          # compression ratio that marks a bomb ...
_RATIO_FLOOR = 4 * 1024 * 1024           # ... on members at least this large
MAX_MEMBERS = 50_000
_METADATA = ("METADATA", "PKG-INFO")
_SKIP_DIRS = {"tests", "test", "testing", "examples", "docs", "node_modules", "site-packages"}


@dataclass
class ArchiveContents:
    """What was read: metadata text, ``(member, source)`` pairs, and skipped members."""

    metadata: str = ""
    sources: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (member, code)


def _unsafe_name(name: str) -> bool:
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return True
    return ".." in PurePosixPath(name.replace("\\", "/")).parts


def _wanted_source(name: str) -> bool:
    parts = PurePosixPath(name).parts
    if not name.endswith(".py") or any(p in _SKIP_DIRS for p in parts[:-1]):
        return False
    return not parts[-1].startswith("test_")


def _is_metadata(name: str) -> bool:
    parts = PurePosixPath(name).parts
    # wheel: <pkg>.dist-info/METADATA; sdist: <pkg>-<ver>/PKG-INFO at the top
    return len(parts) <= 2 and parts[-1] in _METADATA


def _decode(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


class _Reader:
    """Collects members into ArchiveContents with the per-member caps applied."""

    def __init__(self, label: str):
        self.label, self.out = label, ArchiveContents()

    def offer(self, name: str, size: int, read) -> None:
        if _is_metadata(name) and not self.out.metadata and size <= MAX_SOURCE_BYTES:
            self.out.metadata = _decode(read(MAX_SOURCE_BYTES)) or ""
            return
        if not _wanted_source(name):
            return
        if size > MAX_SOURCE_BYTES:
            self.out.skipped.append((name, "too-large"))
            return
        raw = read(MAX_SOURCE_BYTES + 1)
        text = _decode(raw) if len(raw) <= MAX_SOURCE_BYTES else None
        if text is None:
            code = "too-large" if len(raw) > MAX_SOURCE_BYTES else "not-utf8"
            self.out.skipped.append((name, code))
        else:
            self.out.sources.append((name, text))


def _check_zip(label: str, infos: list[zipfile.ZipInfo]) -> None:
    if len(infos) > MAX_MEMBERS:
        raise ArchiveRejected(label, "bomb", f"{len(infos)} members")
    total = 0
    for info in infos:
        if _unsafe_name(info.filename):
            raise ArchiveRejected(label, "unsafe-path", info.filename)
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)   # many builders store permissions with no file type: 0
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            raise ArchiveRejected(label, "link", info.filename)
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size >= _RATIO_FLOOR and ratio > MAX_RATIO:
            raise ArchiveRejected(label, "bomb", f"{info.filename} expands {ratio:.0f}x")
    if total > MAX_TOTAL_BYTES:
        raise ArchiveRejected(label, "bomb", f"{total} bytes unpacked")


def _read_zip(path: Path, label: str) -> ArchiveContents:
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        _check_zip(label, infos)
        reader = _Reader(label)
        for info in infos:
            if info.is_dir():
                continue
            with archive.open(info) as handle:
                # read() is capped: a member may hold more than its header declares
                reader.offer(info.filename, info.file_size, handle.read)
        return reader.out


def _check_tar_member(label: str, member: tarfile.TarInfo, dest: str) -> None:
    if member.issym() or member.islnk():
        raise ArchiveRejected(label, "link", f"{member.name} -> {member.linkname}")
    if _unsafe_name(member.name):
        raise ArchiveRejected(label, "unsafe-path", member.name)
    try:
        tarfile.data_filter(member, dest)   # the standard library's rules for untrusted tars
    except tarfile.FilterError as exc:
        raise ArchiveRejected(label, "unsafe-path", str(exc)) from exc


def _read_tar(path: Path, label: str) -> ArchiveContents:
    reader, total, count = _Reader(label), 0, 0
    dest = posixpath.join("/nonexistent-destination", "x")   # the filter only compares paths
    compressed = max(path.stat().st_size, 1)
    with tarfile.open(path, "r:*") as archive:
        while (member := archive.next()) is not None:
            count += 1
            total += member.size
            if count > MAX_MEMBERS or total > MAX_TOTAL_BYTES:
                raise ArchiveRejected(label, "bomb", f"{count} members, {total} bytes")
            if total >= _RATIO_FLOOR and total / compressed > MAX_RATIO:
                raise ArchiveRejected(label, "bomb", f"expands {total / compressed:.0f}x")
            _check_tar_member(label, member, dest)
            if member.isfile():
                handle = archive.extractfile(member)
                if handle is not None:
                    reader.offer(member.name, member.size, handle.read)
    return reader.out


def read_archive(path: str | Path) -> ArchiveContents:
    """Read a ``.whl``/``.zip`` or ``.tar.gz``/``.tgz``/``.tar`` archive under every cap.

    Raises ArchiveRejected (codes ``unsafe-path``, ``link``, ``bomb``, ``bad-archive``) for an
    archive that must not be read at all.
    """
    path = Path(path)
    label = path.name
    try:
        if zipfile.is_zipfile(path):
            return _read_zip(path, label)
        if tarfile.is_tarfile(path):
            return _read_tar(path, label)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise ArchiveRejected(label, "bad-archive", str(exc)[:200]) from exc
    raise ArchiveRejected(label, "bad-archive", "neither a zip nor a tar archive")

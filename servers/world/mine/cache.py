"""The download cache: one file per package, a ledger of outcomes, resumable and parallel.

Wheels come from ``pip download --no-deps --only-binary :all:`` (the ordinary client; a wheel is
unpacked by no one and runs nothing). A package with no wheel falls back to its source
distribution fetched as a plain file (see ``_index``), because ``pip download`` would build its
metadata and so run its ``setup.py``.

Layout under the cache root::

    files/<archive>        the downloaded wheel or sdist, named as published
    ledger.jsonl           one outcome per line; the last line for a name wins
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

from ._index import fetch_sdist
from .errors import DownloadError

__all__ = ["CacheEntry", "DownloadCache", "DEFAULT_INDEX_URL"]

DEFAULT_INDEX_URL = "https://pypi.org/simple"
# Wheels are chosen as if for this interpreter: most MCP servers need a recent Python, and the
# files are only read, never installed.
TARGET_PYTHON = "3.13"
PIP_TIMEOUT_S = 180


@dataclass(frozen=True)
class CacheEntry:
    """What became of one package: ``status`` is ``ok`` (with file and sha256) or ``failed``."""

    name: str
    status: str
    file: str | None = None
    sha256: str | None = None
    kind: str | None = None          # "wheel" or "sdist"
    reason: str | None = None
    seconds: float = 0.0


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _pip_reason(stderr: str) -> str:
    """The one line of pip's complaint worth keeping in the ledger."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip().startswith("ERROR")]
    return (lines[-1] if lines else stderr.strip()[-200:] or "pip failed")[:300]


class DownloadCache:
    """A folder of downloaded packages with a ledger, so a second run skips what is done."""

    def __init__(self, root: str | Path, *, index_url: str = DEFAULT_INDEX_URL,
                 pip_options: Sequence[str] = ()):
        """``pip_options`` go to every ``pip download`` (``--no-index --find-links DIR``)."""
        self.root = Path(root)
        self.files = self.root / "files"
        self.ledger_path = self.root / "ledger.jsonl"
        self.index_url = index_url
        self.pip_options = list(pip_options)
        self._ledger_lock = threading.Lock()   # worker threads append to one ledger
        self.files.mkdir(parents=True, exist_ok=True)

    # -- the ledger ------------------------------------------------------------------------
    def entries(self) -> dict[str, CacheEntry]:
        """The latest outcome per package name (lower-cased)."""
        found: dict[str, CacheEntry] = {}
        if not self.ledger_path.exists():
            return found
        for line in self.ledger_path.read_text(encoding="utf-8").splitlines():
            try:
                entry = CacheEntry(**json.loads(line))
            except (ValueError, TypeError):
                continue      # a line cut short by a killed run; the package is fetched again
            if entry.status != "ok" or (self.files / (entry.file or "")).is_file():
                found[entry.name.lower()] = entry
        return found

    def _record(self, entry: CacheEntry) -> None:
        line = json.dumps(asdict(entry), sort_keys=True) + "\n"
        with self._ledger_lock, self.ledger_path.open("a", encoding="utf-8") as handle:
            handle.write(line)

    # -- one package -----------------------------------------------------------------------
    def _run_pip(self, name: str, dest: Path) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                   "--python-version", TARGET_PYTHON, "--no-cache-dir", "--quiet",
                   "--disable-pip-version-check", *self.pip_options, "-d", str(dest), name]
        return subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S,
                              check=False)

    def _fetch(self, name: str, dest: Path) -> tuple[Path, str]:
        try:
            result = self._run_pip(name, dest)
        except subprocess.TimeoutExpired as exc:
            raise DownloadError(name, "pip timed out") from exc
        got = sorted(p for p in dest.iterdir() if p.is_file())
        if result.returncode == 0 and got:
            return got[0], "wheel"
        reason = _pip_reason(result.stderr or "")
        if "No matching distribution" not in reason and "from versions: none" not in reason:
            raise DownloadError(name, reason)
        return fetch_sdist(name, dest, index_url=self.index_url), "sdist"

    def download(self, name: str) -> CacheEntry:
        """Fetch ``name`` into the cache (or return its earlier outcome) and record the result."""
        known = self.entries().get(name.lower())
        if known is not None:
            return known
        return self._download_new(name)

    def _download_new(self, name: str) -> CacheEntry:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(dir=self.root, prefix=".part-") as tmp:
            try:
                path, kind = self._fetch(name, Path(tmp))
                final = self.files / path.name
                shutil.move(str(path), final)
                entry = CacheEntry(name, "ok", final.name, _sha256(final), kind,
                                   seconds=round(time.monotonic() - started, 2))
            except DownloadError as exc:
                entry = CacheEntry(name, "failed", reason=exc.reason,
                                   seconds=round(time.monotonic() - started, 2))
        self._record(entry)
        return entry

    def adopt(self, name: str, archive: str | Path) -> CacheEntry:
        """Put a local wheel or sdist into the cache as ``name``'s download and record it."""
        source = Path(archive)
        if not source.is_file():
            raise DownloadError(name, f"no such archive: {source}")
        final = self.files / source.name
        shutil.copyfile(source, final)
        kind = "wheel" if source.suffix == ".whl" else "sdist"
        entry = CacheEntry(name, "ok", final.name, _sha256(final), kind)
        self._record(entry)
        return entry

    # -- many packages ---------------------------------------------------------------------
    def download_all(self, names: Iterable[str], *, workers: int = 8, deadline: float | None = None,
                     retry_failed: bool = False, progress: bool = True) -> dict[str, CacheEntry]:
        """Fetch every name not yet in the ledger, ``workers`` at a time.

        ``deadline`` is a ``time.time()`` after which no new download starts (those running
        finish). Returns the outcome for every name that has one.
        """
        known = self.entries()
        wanted = list(dict.fromkeys(names))
        todo = [n for n in wanted if n.lower() not in known
                or (retry_failed and known[n.lower()].status == "failed")]
        bar = _progress_bar(len(todo), progress)
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = {}
            pending = iter(todo)
            for name in pending:
                futures[pool.submit(self._guarded, name, deadline)] = name
                if len(futures) >= workers * 4:
                    break
            while futures:
                done = next(as_completed(futures))
                name = futures.pop(done)
                entry = done.result()
                if entry is not None:
                    known[name.lower()] = entry
                bar.update(1)
                nxt = next(pending, None)
                if nxt is not None:
                    futures[pool.submit(self._guarded, nxt, deadline)] = nxt
        bar.close()
        return {n.lower(): known[n.lower()] for n in wanted if n.lower() in known}

    def _guarded(self, name: str, deadline: float | None) -> CacheEntry | None:
        if deadline is not None and time.time() >= deadline:
            return None
        return self._download_new(name)


class _NoBar:
    def update(self, n: int) -> None: ...
    def close(self) -> None: ...


def _progress_bar(total: int, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm  # imported late: only the command line shows a bar

    return tqdm(total=total, unit="pkg", desc="download")

"""Built templates kept on disk, so a process builds each environment at most once per machine.

A cached image is written to a temporary file and renamed into place, so a process killed
mid-write never leaves a partial file under the real name; on load the image is checked by
SQLite (``PRAGMA quick_check``) and a damaged file is discarded and rebuilt.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import tempfile
from pathlib import Path

__all__ = ["TemplateCache"]

log = logging.getLogger(__name__)
_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,200}$")


class TemplateCache:
    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def _path(self, env_id: str, key: str) -> Path:
        name = f"{env_id}-{key}.sqlite"
        if not _SAFE.match(name):
            raise ValueError(f"unsafe cache name {name!r}")
        return self.directory / name

    def load(self, env_id: str, key: str) -> bytes | None:
        path = self._path(env_id, key)
        try:
            image = path.read_bytes()
        except FileNotFoundError:
            return None
        if _intact(image):
            return image
        log.warning("discarding damaged cached template %s", path)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return None

    def store(self, env_id: str, key: str, image: bytes) -> None:
        path = self._path(env_id, key)
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".sqlite")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(image)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise


def _intact(image: bytes) -> bool:
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(image)
        return conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()

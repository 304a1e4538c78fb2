"""Fetch a package's newest source distribution from a simple index, without building it.

``pip download`` prepares metadata for a source distribution, which runs the package's own
``setup.py`` or build backend. A mined package must never run, so source distributions are
fetched here as plain files through the index's JSON API (PEP 691), checked against the hash
the index publishes.
"""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import Version

from .errors import DownloadError

__all__ = ["fetch_sdist", "MAX_DOWNLOAD_BYTES"]

# No MCP server's source needs more; a bigger file is refused.
MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024
_ACCEPT = "application/vnd.pypi.simple.v1+json"


def _project_url(index_url: str, name: str) -> str:
    return f"{index_url.rstrip('/')}/{canonicalize_name(name)}/"


def _index_files(index_url: str, name: str, timeout: float) -> list[dict]:
    url = _project_url(index_url, name)
    request = urllib.request.Request(url, headers={"Accept": _ACCEPT})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return json.load(reply).get("files", [])
    except urllib.error.HTTPError as exc:
        raise DownloadError(name, f"index answered {exc.code}") from exc
    except (urllib.error.URLError, TimeoutError, ValueError) as exc:
        raise DownloadError(name, f"index unreachable: {exc}") from exc


def _newest_sdist(name: str, files: list[dict]) -> dict:
    best: tuple[tuple[bool, Version], dict] | None = None
    for entry in files:
        filename = entry.get("filename", "")
        if entry.get("yanked") or not filename.endswith((".tar.gz", ".zip")):
            continue
        try:
            _, version = parse_sdist_filename(filename)
        except InvalidSdistFilename:
            continue
        key = (not version.is_prerelease, version)   # a final release beats any pre-release
        if best is None or key > best[0]:
            best = (key, entry)
    if best is None:
        raise DownloadError(name, "no wheel and no source distribution")
    return best[1]


def fetch_sdist(name: str, dest: Path, *, index_url: str, timeout: float = 60.0) -> Path:
    """Download ``name``'s newest source distribution into ``dest`` and return its path.

    Raises DownloadError when the index has none, the file exceeds MAX_DOWNLOAD_BYTES or its
    hash does not match the index.
    """
    entry = _newest_sdist(name, _index_files(index_url, name, timeout))
    filename = Path(entry["filename"]).name
    expected = (entry.get("hashes") or {}).get("sha256")
    digest, size = hashlib.sha256(), 0
    target = dest / filename
    try:
        url = urllib.parse.urljoin(_project_url(index_url, name), entry["url"])
        with urllib.request.urlopen(url, timeout=timeout) as reply, target.open("wb") as out:
            while chunk := reply.read(1 << 16):
                size += len(chunk)
                if size > MAX_DOWNLOAD_BYTES:
                    raise DownloadError(name, f"larger than {MAX_DOWNLOAD_BYTES} bytes")
                digest.update(chunk)
                out.write(chunk)
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        target.unlink(missing_ok=True)
        raise DownloadError(name, f"fetch failed: {exc}") from exc
    except DownloadError:
        target.unlink(missing_ok=True)
        raise
    if expected and digest.hexdigest() != expected:
        target.unlink(missing_ok=True)
        raise DownloadError(name, "sha256 differs from the index")
    return target

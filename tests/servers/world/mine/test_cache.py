"""The download cache with real pip (offline, from a local folder) and a real local index."""

from __future__ import annotations

import hashlib
import json
import time

from agentworld.servers.world.mine.cache import DownloadCache

from ._index_server import simple_index
from ._packages import write_sdist, write_wheel


def _cache(tmp_path, wheels, index_url="http://127.0.0.1:9/simple"):
    return DownloadCache(tmp_path / "cache", index_url=index_url,
                         pip_options=["--no-index", "--find-links", str(wheels)])


def _ledger_lines(cache) -> int:
    return len(cache.ledger_path.read_text().splitlines())


def test_a_wheel_is_downloaded_hashed_and_recorded(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    write_wheel(wheels, "kennel-mcp")
    cache = _cache(tmp_path, wheels)
    entry = cache.download("kennel-mcp")
    assert entry.status == "ok" and entry.kind == "wheel"
    stored = cache.files / entry.file
    assert entry.sha256 == hashlib.sha256(stored.read_bytes()).hexdigest()
    assert not list(cache.root.glob(".part-*"))     # the temporary folder is gone


def test_a_second_run_resumes_instead_of_downloading_again(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for name in ("kennel-mcp", "cattery-mcp"):
        write_wheel(wheels, name)
    cache = _cache(tmp_path, wheels)
    first = cache.download_all(["kennel-mcp"], workers=2, progress=False)
    with cache.ledger_path.open("a") as handle:
        handle.write('{"name": "cut-sho')          # a run killed mid-line
    again = cache.download_all(["kennel-mcp", "cattery-mcp"], workers=2, progress=False)
    assert again["kennel-mcp"] == first["kennel-mcp"]
    assert again["cattery-mcp"].status == "ok"
    lines = cache.ledger_path.read_text().splitlines()
    assert sum('"kennel-mcp"' in ln for ln in lines) == 1    # fetched once, across two runs


def test_a_missing_package_fails_with_a_reason_and_can_be_retried(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    cache = _cache(tmp_path, wheels)
    entry = cache.download("no-such-mcp")
    assert entry.status == "failed" and entry.reason
    assert cache.download_all(["no-such-mcp"], progress=False)["no-such-mcp"] == entry
    write_wheel(wheels, "no-such-mcp")
    retried = cache.download_all(["no-such-mcp"], retry_failed=True, progress=False)
    assert retried["no-such-mcp"].status == "ok"


def test_no_download_starts_after_the_deadline(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    write_wheel(wheels, "kennel-mcp")
    cache = _cache(tmp_path, wheels)
    assert cache.download_all(["kennel-mcp"], deadline=time.time() - 1, progress=False) == {}
    assert not cache.ledger_path.exists()


def test_a_package_with_only_an_sdist_is_fetched_as_a_file(tmp_path):
    wheels, index = tmp_path / "wheels", tmp_path / "index"
    wheels.mkdir()
    index.mkdir()
    sdist = write_sdist(wheels, "source-only-mcp")
    (index / sdist.name).write_bytes(sdist.read_bytes())
    with simple_index(index) as url:
        entry = _cache(tmp_path, wheels, url).download("source-only-mcp")
    assert entry.status == "ok" and entry.kind == "sdist" and entry.file == sdist.name
    assert entry.sha256 == hashlib.sha256(sdist.read_bytes()).hexdigest()


def test_an_sdist_whose_hash_differs_from_the_index_is_refused(tmp_path):
    wheels, index = tmp_path / "wheels", tmp_path / "index"
    wheels.mkdir()
    index.mkdir()
    sdist = write_sdist(index, "tampered-mcp")
    with simple_index(index, hashes={sdist.name: "0" * 64}) as url:
        cache = _cache(tmp_path, wheels, url)
        entry = cache.download("tampered-mcp")
    assert entry.status == "failed" and "sha256" in entry.reason
    assert list(cache.files.iterdir()) == []
    assert json.loads(cache.ledger_path.read_text())["status"] == "failed"

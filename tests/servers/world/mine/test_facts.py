"""The pinned snapshot: facts only, deterministic, checked on load; words read at build time."""

from __future__ import annotations

import gzip

import pytest

from agentworld.servers.world.mine.errors import SnapshotError
from agentworld.servers.world.mine.facts import load_snapshot, read_descriptions, write_snapshot
from agentworld.servers.world.mine.miner import derive, mine_entries

from .test_miner import build_cache


@pytest.fixture
def mined(tmp_path):
    cache = build_cache(tmp_path)
    return cache, derive(mine_entries(cache.entries().values(), cache.files))


def test_round_trip_and_identical_bytes(mined, tmp_path):
    _, records = mined
    first = write_snapshot(records, tmp_path / "a.jsonl.gz")
    second = write_snapshot(list(reversed(records)), tmp_path / "b.jsonl.gz")
    assert first.read_bytes() == second.read_bytes()
    assert load_snapshot(first) == sorted(records, key=lambda r: r.name.lower())


def test_the_snapshot_holds_no_words_of_the_authors(mined, tmp_path):
    _, records = mined
    text = gzip.decompress(write_snapshot(records, tmp_path / "s.jsonl.gz").read_bytes()).decode()
    assert "description" not in text
    for words in ("Read one dog", "Book a stay", "the dog", "A CRM for a shop"):
        assert words not in text
    assert "book_stay" in text and '"enum":["boarding","home"]' in text


def test_descriptions_are_read_from_the_pinned_archive(mined):
    cache, records = mined
    kennel = next(r for r in records if r.name == "kennel-mcp")
    assert read_descriptions(kennel, cache.files)["list_dogs"] == "List the dogs in the kennel."
    (cache.files / kennel.file).write_bytes(b"changed")
    with pytest.raises(SnapshotError, match="sha256 differs"):
        read_descriptions(kennel, cache.files)
    kennel.file = "gone.tar.gz"
    with pytest.raises(SnapshotError, match="not in the cache"):
        read_descriptions(kennel, cache.files)


@pytest.mark.parametrize("content, message", [
    (b"", "unknown snapshot version"),
    (b'{"snapshot_version": 99, "packages": 0}\n', "unknown snapshot version"),
    (b'{"snapshot_version": 1, "packages": 2}\n{"name": "a", "status": "mined"}\n',
     "record count"),
    (b'{"snapshot_version": 1, "packages": 1}\n{"name": "a", "colour": "red"}\n', "malformed"),
])
def test_a_bad_snapshot_is_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(SnapshotError, match=message):
        load_snapshot(path)


def test_a_missing_snapshot_is_a_clear_error(tmp_path):
    with pytest.raises(SnapshotError, match="No such file"):
        load_snapshot(tmp_path / "absent.jsonl.gz")

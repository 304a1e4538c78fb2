"""The catalog: hand-built and synthesized environments, templates cached on disk, generated
tasks attached on first use."""

import sqlite3

import pytest

from agentworld.servers import Catalog, UnknownEnvironmentError

WORLD_ID = "hotel-chain-reservations"     # a domain-pack environment: built, not listed
MINED_ID = "superset"                      # a mined one, listed


@pytest.fixture
def catalog(tmp_path):
    return Catalog(world=True, cache_dir=tmp_path / "templates", task_dir=tmp_path / "tasks")


def test_ids_and_summaries_cover_the_world_without_compiling(catalog):
    ids = catalog.ids()
    assert len(ids) == 1978 and {"notion", "github", "airline", MINED_ID} <= set(ids)
    assert WORLD_ID not in ids and WORLD_ID in catalog
    summaries = {s["id"]: s for s in catalog.summaries()}
    assert summaries[MINED_ID]["kind"] == "synthesized"
    assert summaries["github"]["kind"] == "hand-built"
    assert catalog.is_synthesized(MINED_ID) and catalog.is_synthesized(WORLD_ID)
    assert not catalog.is_synthesized("github")


def test_world_templates_are_cached_on_disk_and_reused(catalog, tmp_path):
    first = catalog.load(WORLD_ID).template
    files = list((tmp_path / "templates").glob(f"{WORLD_ID}-*.sqlite"))
    assert len(files) == 1
    again = Catalog(world=True, cache_dir=tmp_path / "templates").load(WORLD_ID).template
    assert again.hash == first.hash


def test_a_damaged_cache_file_is_rebuilt(catalog, tmp_path):
    expected = catalog.load(WORLD_ID).template.hash
    path = next((tmp_path / "templates").glob(f"{WORLD_ID}-*.sqlite"))
    path.write_bytes(path.read_bytes()[:5000])  # a write cut short
    rebuilt = Catalog(world=True, cache_dir=tmp_path / "templates").load(WORLD_ID).template
    assert rebuilt.hash == expected
    sqlite3.connect(":memory:").deserialize(path.read_bytes())  # the file was replaced whole


def test_generated_tasks_attach_on_first_use(catalog, tmp_path):
    env = catalog.load(WORLD_ID)
    tasks = env.tasks  # generates, builds the template, stores the set
    assert len(tasks) >= 10 and all(t.env_id == WORLD_ID for t in tasks)
    assert (tmp_path / "tasks" / f"{WORLD_ID}.jsonl").exists()
    reloaded = Catalog(world=True, task_dir=tmp_path / "tasks").load(WORLD_ID).tasks
    assert [t.id for t in reloaded] == [t.id for t in tasks]


def test_unknown_ids_are_refused(catalog):
    with pytest.raises(UnknownEnvironmentError):
        catalog.load("../../etc/passwd")
    assert "nope" not in catalog

import gzip
import json

from agentworld.servers.world import registry
from agentworld.servers.world.mined import world as mined_world
from agentworld.servers.world.mined.world import build_mined_world, candidates

from ._surfaces import PRICES_TOOLS, TRACKER_TOOLS, record


def _snapshot(tmp_path, records):
    path = tmp_path / "snapshot.jsonl.gz"
    lines = [json.dumps({"snapshot_version": 1, "packages": len(records)})]
    lines += [json.dumps(r) for r in records]
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return str(path)


def _records():
    renamed = [{**t, "name": t["name"].replace("tracker_", "")} for t in TRACKER_TOOLS]
    return [record("tracker-mcp", TRACKER_TOOLS),
            record("mseep-tracker-mcp", TRACKER_TOOLS, duplicate_of="tracker-mcp"),
            record("plain-tracker", renamed),
            record("prices-mcp", PRICES_TOOLS, l1="Finance & Markets", l2="Trading & Investing"),
            record("unselected-mcp", PRICES_TOOLS, selected=False)]


def test_candidates_are_selected_originals_most_tools_first(tmp_path):
    records = mined_world.snapshot_records(_snapshot(tmp_path, _records()))
    assert [r["name"] for r in candidates(records)] == ["plain-tracker", "tracker-mcp",
                                                       "prices-mcp"]


def test_the_build_keeps_passing_servers_with_distinct_ids_and_tool_sets(tmp_path):
    out, report_path = tmp_path / "mined.json", tmp_path / "mined_report.json"
    report = build_mined_world(workers=1, progress=False, out=out, report_path=report_path,
                               snapshot=_snapshot(tmp_path, _records()),
                               reserved_ids={"tracker"})
    index = json.loads(out.read_text())
    ids = [e["id"] for e in index]
    assert report["candidates"] == 3 and report["kept"] == 3
    assert "tracker" not in ids and "tracker-mcp" in ids        # a reserved id is not reused
    assert len({tuple(e["tool_names"]) for e in index}) == len(index)
    assert all(e["tools"] >= 10 for e in index)
    assert report["tools"]["added"] > 0 and report["tools"]["mined"] > 0
    assert 0 < report["kept_share"]["mean"] <= 1
    assert report["drop_reasons"]


def test_the_registry_serves_mined_environments_beside_the_domain_packs(tmp_path, monkeypatch):
    snapshot = _snapshot(tmp_path, _records())
    out = tmp_path / "mined.json"
    build_mined_world(workers=1, progress=False, out=out, report_path=tmp_path / "r.json",
                      snapshot=snapshot, reserved_ids=set())
    monkeypatch.setattr(registry, "MINED_INDEX", out)
    monkeypatch.setattr(mined_world, "DEFAULT_SNAPSHOT", snapshot)
    for cached in (registry.mined_entries, registry.world_cards, registry._compiled):
        cached.cache_clear()
    original, one = mined_world.snapshot_records, mined_world.snapshot_record
    monkeypatch.setattr(mined_world, "snapshot_records", lambda path=snapshot: original(path))
    monkeypatch.setattr(mined_world, "snapshot_record", lambda name, path=snapshot: one(name, path))
    try:
        cards = registry.world_cards()
        packs = registry._pack_cards()
        assert len(cards) == len(packs)                        # the world keeps its size
        mined = [c for c in cards.values() if registry.is_mined(c)]
        assert {c.id for c in mined} == {e["id"] for e in json.loads(out.read_text())}
        env = registry.compiled(mined[0].id).definition
        assert env.manifest.provenance["package"] == mined[0].archetype.split(":", 1)[1]
        summary = next(s for s in registry.world_summaries() if s["id"] == mined[0].id)
        assert summary["kind"] == "mined" and summary["provenance"]["registry"] == "pypi"
        assert registry.cache_key(mined[0].id) != registry.cache_key(mined[-1].id)
    finally:
        for cached in (registry.mined_entries, registry.world_cards, registry._compiled):
            cached.cache_clear()


def test_a_memo_makes_a_second_build_redo_nothing_and_a_deadline_writes_what_is_done(tmp_path):
    snapshot, memo = _snapshot(tmp_path, _records()), tmp_path / "memo.jsonl"
    first = build_mined_world(workers=1, progress=False, out=tmp_path / "a.json",
                              report_path=tmp_path / "ra.json", snapshot=snapshot, memo=memo)
    lines = memo.read_text().splitlines()
    assert len(lines) == 3
    second = build_mined_world(workers=1, progress=False, out=tmp_path / "b.json",
                               report_path=tmp_path / "rb.json", snapshot=snapshot, memo=memo)
    assert memo.read_text().splitlines() == lines             # nothing recomputed
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()
    assert second["kept"] == first["kept"]
    late = build_mined_world(workers=1, progress=False, out=tmp_path / "c.json",
                             report_path=tmp_path / "rc.json", snapshot=snapshot, deadline=0)
    assert late["candidates"] + late["not_started"] == 3 and late["not_started"] >= 1

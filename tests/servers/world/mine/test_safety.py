"""Nothing from a mined package is ever executed: download, read, extract, pin, describe.

The fixture packages write a marker file and raise as soon as any of their code runs (module
import, ``setup.py``). The whole pipeline runs over them and the markers must not appear; a
control run executes the same code on purpose, to show the trap is live.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import textwrap

from agentworld.servers.world.mine.cache import DownloadCache
from agentworld.servers.world.mine.facts import load_snapshot, read_descriptions, write_snapshot
from agentworld.servers.world.mine.miner import derive, mine_entries

from ._index_server import simple_index
from ._packages import SERVER_SOURCE, write_sdist, write_wheel


def _trap(marker) -> str:
    return textwrap.dedent(f'''
        import pathlib
        pathlib.Path({str(marker)!r}).write_text("executed")
        raise SystemExit("a mined package must never run")
    ''')


def _packages(tmp_path):
    marker = tmp_path / "EXECUTED"
    wheels, index = tmp_path / "wheels", tmp_path / "index"
    wheels.mkdir()
    index.mkdir()
    trap = _trap(marker)
    write_wheel(wheels, "trap-wheel-mcp",
                files={"__init__.py": trap, "server.py": trap + SERVER_SOURCE})
    write_sdist(index, "trap-sdist-mcp",
                files={"setup.py": trap, "trap_sdist_mcp/__init__.py": trap,
                       "trap_sdist_mcp/server.py": trap + SERVER_SOURCE})
    return marker, wheels, index


def test_the_trap_is_live(tmp_path):
    marker, _, index = _packages(tmp_path)
    with tarfile.open(next(index.iterdir())) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    setup = next((tmp_path / "unpacked").glob("*/setup.py"))
    result = subprocess.run([sys.executable, str(setup)], capture_output=True, text=True)
    assert result.returncode != 0 and marker.read_text() == "executed"


def test_mining_executes_nothing(tmp_path):
    marker, wheels, index = _packages(tmp_path)
    with simple_index(index) as url:
        cache = DownloadCache(tmp_path / "cache", index_url=url,
                              pip_options=["--no-index", "--find-links", str(wheels)])
        entries = cache.download_all(["trap-wheel-mcp", "trap-sdist-mcp"], progress=False)
    assert {e.kind for e in entries.values()} == {"wheel", "sdist"}
    records = derive(mine_entries(entries.values(), cache.files, workers=2))
    path = write_snapshot(records, tmp_path / "snapshot.jsonl")
    for record in load_snapshot(path):
        assert record.status == "mined" and "book_stay" in record.tool_names()
        assert read_descriptions(record, cache.files)["get_dog"] == "Read one dog."
    assert not marker.exists()

"""An earlier revision of agentworld, importable next to the working tree, for a baseline
measured in the same run: ``git archive REV`` is unpacked into a cache folder and laid out as
the ``agentworld`` package (its top-level folders linked in, as pyproject maps them). A server
started with ``_common.hub_process(tree=export_tree(rev))`` imports that revision instead of the
working tree."""

from __future__ import annotations

import os
import subprocess
import tarfile
import tempfile
from pathlib import Path

from _common import ROOT

CACHE = Path(tempfile.gettempdir()) / "agentworld-bench-trees"
_PACKAGES = ("servers", "hub", "gym_api", "trainer")


def export_tree(rev: str) -> Path:
    """The folder to put first on PYTHONPATH to import ``rev`` (exported once, then cached)."""
    commit = subprocess.run(["git", "rev-parse", rev], cwd=ROOT, check=True, capture_output=True,
                            text=True).stdout.strip()
    pkg = CACHE / commit / "pkg"
    if (pkg / "agentworld" / "__init__.py").exists():
        return pkg
    src = CACHE / commit / "src"
    src.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True,
                             capture_output=True).stdout
    with tempfile.TemporaryFile() as tmp:
        tmp.write(archive)
        tmp.seek(0)
        with tarfile.open(fileobj=tmp) as tar:
            tar.extractall(src, filter="data")
    (pkg / "agentworld").mkdir(parents=True, exist_ok=True)
    for item in (src / "agentworld").iterdir():
        os.symlink(item, pkg / "agentworld" / item.name)
    for name in _PACKAGES:
        os.symlink(src / name, pkg / "agentworld" / name)
    return pkg

"""One fixture release, imported once per test run, served by one small warm pool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentworld.servers import Catalog
from agentworld.servers.imported import ImportReport, SandboxLimits, WorkerPool, import_release

from .release_fixture import write_release

# Short enough to keep the suite fast, long enough for a loaded CI machine.
TEST_LIMITS = SandboxLimits(call_timeout=1.5, cpu_seconds=5)


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Path:
    return write_release(tmp_path_factory.mktemp("release"))


@pytest.fixture(scope="session")
def imported(release, tmp_path_factory) -> tuple[Path, ImportReport]:
    out = tmp_path_factory.mktemp("imported")
    return out, import_release(release, out)


@pytest.fixture(scope="session")
def pool() -> Iterator[WorkerPool]:
    with WorkerPool(size=2, limits=TEST_LIMITS) as warm:
        yield warm.warm()


@pytest.fixture(scope="session")
def catalog(imported, pool) -> Catalog:
    out, _ = imported
    return Catalog(modules={}, import_dirs=[out], sandbox=pool)

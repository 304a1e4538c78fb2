"""Untrusted archives: hostile names, links and bombs are refused; oversized files skipped."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from agentworld.servers.world.mine.archive import MAX_SOURCE_BYTES, read_archive
from agentworld.servers.world.mine.errors import ArchiveRejected

from ._packages import (
    FILE_MODE,
    SYMLINK_MODE,
    add_hardlink,
    add_symlink,
    write_sdist,
    write_wheel,
    zip_with,
)


def test_a_wheel_gives_metadata_and_sources(tmp_path):
    contents = read_archive(write_wheel(tmp_path, "kennel-mcp"))
    assert "Name: kennel-mcp" in contents.metadata
    members = sorted(m for m, _ in contents.sources)
    assert members == ["kennel_mcp/low_level.py", "kennel_mcp/server.py"]


def test_an_sdist_gives_metadata_and_sources(tmp_path):
    contents = read_archive(write_sdist(tmp_path, "kennel-mcp"))
    assert "Version: 1.0.0" in contents.metadata
    assert [m for m, _ in contents.sources] == ["kennel_mcp-1.0.0/kennel_mcp/server.py"]


def test_tests_and_examples_are_not_read(tmp_path):
    files = {"server.py": "x = 1\n", "tests/test_a.py": "y = 2\n", "examples/demo.py": "z = 3\n"}
    contents = read_archive(write_wheel(tmp_path, "quiet-mcp", files=files))
    assert [m for m, _ in contents.sources] == ["quiet_mcp/server.py"]


@pytest.mark.parametrize("member",
                         ["../evil.py", "pkg/../../evil.py", "/etc/evil.py", "C:/evil.py"])
def test_zip_with_a_hostile_name_is_rejected(tmp_path, member):
    members = [("pkg/ok.py", b"x=1", FILE_MODE), (member, b"x=1", FILE_MODE)]
    path = zip_with(tmp_path / "bad.whl", members)
    with pytest.raises(ArchiveRejected) as err:
        read_archive(path)
    assert err.value.code == "unsafe-path"


def test_zip_with_a_symlink_is_rejected(tmp_path):
    path = zip_with(tmp_path / "link.whl", [("pkg/passwd.py", b"/etc/passwd", SYMLINK_MODE)])
    with pytest.raises(ArchiveRejected) as err:
        read_archive(path)
    assert err.value.code == "link"


@pytest.mark.parametrize("adder, target", [(add_symlink, "/etc/passwd"), (add_hardlink, "x/a.py")])
def test_tar_with_a_link_is_rejected(tmp_path, adder, target):
    path = write_sdist(tmp_path, "linky-mcp",
                       extra=lambda tar, root: adder(tar, f"{root}/l.py", target))
    with pytest.raises(ArchiveRejected) as err:
        read_archive(path)
    assert err.value.code == "link"


@pytest.mark.parametrize("member", ["../../evil.py", "/tmp/evil.py"])
def test_tar_with_a_hostile_name_is_rejected(tmp_path, member):
    def hostile(tar, root):
        info = tarfile.TarInfo(member)
        info.size = 3
        tar.addfile(info, io.BytesIO(b"x=1"))

    with pytest.raises(ArchiveRejected) as err:
        read_archive(write_sdist(tmp_path, "climb-mcp", extra=hostile))
    assert err.value.code == "unsafe-path"


def test_zip_bomb_is_rejected(tmp_path):
    path = tmp_path / "bomb.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pkg/zeros.bin", b"\0" * (16 * 1024 * 1024))
    with pytest.raises(ArchiveRejected) as err:
        read_archive(path)
    assert err.value.code == "bomb"


def test_tar_bomb_is_rejected(tmp_path):
    def zeros(tar, root):
        info = tarfile.TarInfo(f"{root}/zeros.bin")
        info.size = 16 * 1024 * 1024
        tar.addfile(info, io.BytesIO(b"\0" * info.size))

    with pytest.raises(ArchiveRejected) as err:
        read_archive(write_sdist(tmp_path, "bomb-mcp", extra=zeros))
    assert err.value.code == "bomb"


def test_a_ten_megabyte_source_is_skipped_and_reported(tmp_path):
    # random-looking text so it is not also a compression bomb
    big = "".join(f"X{i} = {i * 7919 % 100003}\n" for i in range(700_000))
    assert len(big) > 10 * 1024 * 1024 > MAX_SOURCE_BYTES
    files = {"server.py": "import mcp\n", "schema.py": big}
    contents = read_archive(write_wheel(tmp_path, "huge-mcp", files=files))
    assert [m for m, _ in contents.sources] == ["huge_mcp/server.py"]
    assert contents.skipped == [("huge_mcp/schema.py", "too-large")]


def test_a_file_that_is_no_archive_is_rejected(tmp_path):
    path = tmp_path / "fake.whl"
    path.write_bytes(b"not an archive at all")
    with pytest.raises(ArchiveRejected) as err:
        read_archive(path)
    assert err.value.code == "bad-archive"

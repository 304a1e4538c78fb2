"""Small MCP server packages the tests write themselves: wheels, sdists, hostile archives."""

from __future__ import annotations

import io
import stat
import tarfile
import textwrap
import zipfile
from pathlib import Path

SERVER_SOURCE = textwrap.dedent('''
    from typing import Annotated, Literal, Optional
    from enum import Enum
    from pydantic import Field
    from mcp.server.fastmcp import FastMCP, Context

    mcp = FastMCP("kennel")

    class Size(str, Enum):
        SMALL = "small"
        LARGE = "large"

    @mcp.tool()
    def list_dogs(status: Literal["boarding", "home"] = "boarding", limit: int = 20) -> list:
        """List the dogs in the kennel."""

    @mcp.tool("get_dog")
    async def fetch_one(dog_id: str, ctx: Context) -> dict:
        """Read one dog."""

    @mcp.tool(name="book_stay", description="Book a stay for a dog.")
    def book(dog_id: Annotated[str, Field(description="the dog")],
             nights: int = Field(..., description="how many nights"),
             size: Size = Size.SMALL, notes: Optional[str] = None,
             tags: list[str] | None = None) -> dict:
        return {}

    @mcp.tool
    def cancel_stay(stay_id: str, *, reason: str = "owner request") -> dict:
        return {}

    def checkout_dog(stay_id: str) -> dict:
        return {}

    mcp.add_tool(checkout_dog, name="checkout_stay")
''')

LOW_LEVEL_SOURCE = textwrap.dedent('''
    from mcp import types

    TOOLS = [
        types.Tool(name="update_dog", description="Change a dog.",
                   inputSchema={"type": "object",
                                "properties": {
                                    "dog_id": {"type": "string"},
                                    "weight": {"type": ["number", "null"]},
                                    "size": {"type": "string", "enum": ["small", "large"]},
                                    "tags": {"type": "array", "items": {"type": "string"}}},
                                "required": ["dog_id"]}),
        types.Tool(name="delete_dog", description="Remove a dog.", inputSchema=build_schema()),
    ]
''')


def metadata(name: str, version: str, licence: str = "MIT", summary: str = "") -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
             f"License-Expression: {licence}"]
    if summary:
        lines.append(f"Summary: {summary}")
    return "\n".join(lines) + "\n\n"


def _module(name: str) -> str:
    return name.replace("-", "_")


def write_wheel(directory: Path, name: str, version: str = "1.0.0",
                files: dict[str, str] | None = None, summary: str = "") -> Path:
    """A pure wheel whose package holds ``files`` (default: the kennel server)."""
    module = _module(name)
    files = files if files is not None else {"server.py": SERVER_SOURCE,
                                             "low_level.py": LOW_LEVEL_SOURCE}
    path = directory / f"{module}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, text in files.items():
            archive.writestr(f"{module}/{rel}", text)
        info = f"{module}-{version}.dist-info"
        archive.writestr(f"{info}/METADATA", metadata(name, version, summary=summary))
        archive.writestr(f"{info}/WHEEL",
                         "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{info}/RECORD", "")
    return path


def _add(archive: tarfile.TarFile, name: str, data: bytes, **attrs) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    for key, value in attrs.items():
        setattr(info, key, value)
    archive.addfile(info, io.BytesIO(data))


def write_sdist(directory: Path, name: str, version: str = "1.0.0",
                files: dict[str, str] | None = None, extra=None) -> Path:
    """A source distribution; ``extra(archive, root)`` may add hostile members."""
    module = _module(name)
    root = f"{module}-{version}"
    files = files if files is not None else {f"{module}/server.py": SERVER_SOURCE}
    path = directory / f"{root}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        _add(archive, f"{root}/PKG-INFO", metadata(name, version).encode())
        for rel, text in files.items():
            _add(archive, f"{root}/{rel}", text.encode())
        if extra is not None:
            extra(archive, root)
    return path


def zip_with(path: Path, members: list[tuple[str, bytes, int]]) -> Path:
    """A zip whose members carry raw ``external_attr`` modes (for links and odd names)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return path


SYMLINK_MODE = stat.S_IFLNK | 0o777
FILE_MODE = stat.S_IFREG | 0o644


def add_symlink(archive: tarfile.TarFile, name: str, target: str) -> None:
    _add(archive, name, b"", type=tarfile.SYMTYPE, linkname=target)


def add_hardlink(archive: tarfile.TarFile, name: str, target: str) -> None:
    _add(archive, name, b"", type=tarfile.LNKTYPE, linkname=target)

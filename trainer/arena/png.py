"""Plots without a plotting library: grouped bar charts written as PNG with zlib.

matplotlib is used when it is installed (it draws labels); otherwise these charts carry no
text, and the markdown report puts the numbers in a table next to each one.
"""

from __future__ import annotations

import importlib.util
import struct
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["grouped_bars", "PALETTE"]

PALETTE = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
           (140, 86, 75), (227, 119, 194), (127, 127, 127)]


def _png(width: int, height: int, pixels: list[bytearray]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def _fill(pixels, x0: int, y0: int, x1: int, y1: int, color) -> None:
    for y in range(max(0, y0), min(len(pixels), y1)):
        row = pixels[y]
        for x in range(max(0, x0), min(len(row) // 3, x1)):
            row[3 * x:3 * x + 3] = bytes(color)


def _plain(path: Path, groups: Sequence[str], series: Mapping[str, Sequence[float]]) -> None:
    bar, gap, pad, height = 14, 10, 20, 200
    n = max(1, len(series))
    width = pad * 2 + max(1, len(groups)) * (n * bar + gap)
    pixels = [bytearray(b"\xff" * (3 * width)) for _ in range(height + 2 * pad)]
    for tick in (0.25, 0.5, 0.75, 1.0):        # light grid lines at quarters
        y = pad + height - round(tick * height)
        _fill(pixels, pad, y, width - pad, y + 1, (225, 225, 225))
    for gi in range(len(groups)):
        for si, values in enumerate(series.values()):
            value = max(0.0, min(1.0, float(values[gi]) if gi < len(values) else 0.0))
            x = pad + gi * (n * bar + gap) + si * bar
            top = pad + height - round(value * height)
            _fill(pixels, x, top, x + bar - 2, pad + height, PALETTE[si % len(PALETTE)])
    _fill(pixels, pad, pad + height, width - pad, pad + height + 1, (0, 0, 0))
    path.write_bytes(_png(width, len(pixels), pixels))


def _matplotlib(path: Path, groups, series, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(4, len(groups) * 0.6 * n), 3.5))
    for si, (name, values) in enumerate(series.items()):
        ax.bar([g + si / (n + 1) for g in range(len(groups))], values, width=1 / (n + 1),
               label=name)
    ax.set_xticks(range(len(groups)), groups, rotation=45, ha="right", fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def grouped_bars(path: str | Path, groups: Sequence[str], series: Mapping[str, Sequence[float]],
                 *, title: str = "") -> Path:
    """Bars for values in [0, 1]: one group per label, one color per series (in
    :data:`PALETTE` order)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if importlib.util.find_spec("matplotlib") is not None:
        _matplotlib(path, list(groups), dict(series), title)
    else:
        _plain(path, list(groups), dict(series))
    return path

"""The arena's charts, drawn with matplotlib (the ``train`` extra): grouped bars with a title,
labelled axes, a legend and the value on each bar."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from agentworld.trainer.errors import MissingDependencyError

__all__ = ["grouped_bars"]


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def grouped_bars(path: str | Path, groups: Sequence[str],
                 series: Mapping[str, Sequence[float | None]], *, title: str,
                 ylabel: str = "share of episodes", xlabel: str = "") -> Path:
    """Bars for values in [0, 1]: one group per label, one bar per series; a missing value
    (None) is left out and marked "n/a". Writes a PNG to ``path``.

    Raises:
        MissingDependencyError: matplotlib is not installed.
    """
    plt = _pyplot()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = max(1, len(series))
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(5.0, len(groups) * 0.5 * n + 2), 4))
    for si, (name, values) in enumerate(series.items()):
        xs = [g + (si - (n - 1) / 2) * width for g in range(len(groups))]
        heights = [0.0 if v is None else float(v) for v in values]
        bars = ax.bar(xs, heights, width=width, label=name)
        labels = ["n/a" if v is None else f"{v:.0%}" for v in values]
        ax.bar_label(bars, labels=labels, fontsize=6, padding=1)
    ax.set_xticks(range(len(groups)), list(groups), rotation=40, ha="right", fontsize=7)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_title(title)
    if len(series) > 1:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path

"""The miner: real MCP servers from the package registry, read statically into pinned facts.

The pipeline reads as its modules: ``listing`` (candidate names from a listing on disk),
``cache`` (downloads, resumable), ``archive`` (safe reading of untrusted archives), ``extract``
(tools from the sources' syntax tree, never run), ``dedup`` (republished copies), ``select``
(fit for stateful simulation), ``taxonomy`` (category), ``facts`` (the pinned snapshot) and
``stats`` (the numbers).
"""

from .archive import ArchiveContents, read_archive
from .cache import CacheEntry, DownloadCache
from .dedup import Copy, find_copies
from .errors import ArchiveRejected, DownloadError, ListingError, MineError, SnapshotError
from .extract import extract_contents, extract_sources
from .facts import DEFAULT_SNAPSHOT, PackageRecord, load_snapshot, read_descriptions, write_snapshot
from .listing import Candidate, read_candidates
from .miner import derive, mine_entries, mine_entry
from .select import Fit, assess
from .stats import mine_stats, stats_markdown
from .surface import MinedTool, Param, Problem, Surface
from .taxonomy import Classification, classify

__all__ = [
    "ArchiveContents", "ArchiveRejected", "CacheEntry", "Candidate", "Classification", "Copy",
    "DEFAULT_SNAPSHOT", "DownloadCache", "DownloadError", "Fit", "ListingError", "MineError",
    "MinedTool", "PackageRecord", "Param", "Problem", "SnapshotError", "Surface", "assess",
    "classify", "derive", "extract_contents", "extract_sources", "find_copies", "load_snapshot",
    "mine_entries", "mine_entry", "mine_stats", "read_archive", "read_candidates",
    "read_descriptions", "stats_markdown", "write_snapshot",
]

"""Mining: from cached archives to package records, then copies, fit and category.

``mine_entry`` reads one cached package (archive checks, static extraction, core metadata);
``derive`` marks republished copies, assesses fit and classifies every record. Both only read
files: nothing from a package is imported or run.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

from ._metadata import parse_metadata
from .archive import read_archive
from .cache import CacheEntry
from .dedup import find_copies
from .errors import ArchiveRejected
from .extract import extract_contents
from .facts import PackageRecord
from .select import assess
from .taxonomy import classify, summary_terms, vocabulary_fingerprint

__all__ = ["mine_entry", "mine_entries", "derive", "MINER_VERSION"]

# Bump when extraction changes what it reads, so memoised results are read afresh.
MINER_VERSION = 4


def mine_entry(entry: CacheEntry, files_dir: str | Path) -> PackageRecord:
    """The record of one ledger entry: failed, rejected (with the archive's reason) or mined."""
    if entry.status != "ok" or not entry.file:
        return PackageRecord(entry.name, "failed", reason=entry.reason or "download failed")
    base = PackageRecord(entry.name, "mined", file=entry.file, sha256=entry.sha256 or "",
                         kind=entry.kind or "")
    try:
        contents = read_archive(Path(files_dir) / entry.file)
    except ArchiveRejected as exc:
        base.status, base.reason = "rejected", exc.code
        return base
    meta = parse_metadata(contents.metadata)
    surface = extract_contents(contents)
    base.version, base.licence = meta.version, meta.licence
    base.summary_terms = summary_terms(meta.summary)
    base.tools = [t.facts() for t in surface.tools]
    base.problems = dict(sorted(Counter(p.code for p in surface.problems).items()))
    return base


def _mine_pair(args: tuple[CacheEntry, str]) -> PackageRecord:
    return mine_entry(*args)


def mine_entries(entries: Iterable[CacheEntry], files_dir: str | Path, *, workers: int = 1,
                 progress: bool = False, memo: str | Path | None = None) -> list[PackageRecord]:
    """Mine many entries, in ``workers`` processes when more than one (parsing is CPU-bound).

    ``memo`` is a JSONL file of earlier results keyed by archive hash, miner version and
    vocabulary, so a rerun over a grown cache reads only the new archives.
    """
    entries = list(entries)
    known = _load_memo(memo)
    todo = [e for e in entries if _memo_key(e) not in known]
    jobs = [(e, str(files_dir)) for e in todo]
    if workers <= 1:
        fresh = _collect(map(_mine_pair, jobs), todo, memo, progress)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            fresh = _collect(pool.map(_mine_pair, jobs, chunksize=16), todo, memo, progress)
    made = {id(e): r for e, r in zip(todo, fresh, strict=True)}
    return [made.get(id(e)) or PackageRecord(**known[_memo_key(e)]) for e in entries]


def _memo_key(entry: CacheEntry) -> str:
    if entry.status != "ok" or not entry.sha256:
        return ""                          # failures are cheap to redo and never memoised
    return f"{entry.name.lower()}:{entry.sha256}:{MINER_VERSION}:{vocabulary_fingerprint()}"


def _load_memo(memo: str | Path | None) -> dict[str, dict]:
    if memo is None or not Path(memo).exists():
        return {}
    known = {}
    for line in Path(memo).read_text(encoding="utf-8").splitlines():
        try:
            item = json.loads(line)
            known[item["key"]] = item["record"]
        except (ValueError, KeyError, TypeError):
            continue                       # a line cut short by a killed run
    known.pop("", None)
    return known


def _collect(results, entries: list[CacheEntry], memo: str | Path | None,
             progress: bool) -> list[PackageRecord]:
    """Gather results in order, appending each to the memo as it comes (a killed run keeps them)."""
    out: list[PackageRecord] = []
    handle = Path(memo).open("a", encoding="utf-8") if memo is not None else None
    try:
        for entry, record in zip(entries, _with_bar(results, len(entries), progress), strict=True):
            out.append(record)
            if handle is not None and (key := _memo_key(entry)):
                handle.write(json.dumps({"key": key, "record": asdict(record)}) + "\n")
                handle.flush()
    finally:
        if handle is not None:
            handle.close()
    return out


def _with_bar(results, total: int, progress: bool):
    if not progress:
        return results
    from tqdm import tqdm

    return tqdm(results, total=total, unit="pkg", desc="extract")


def derive(records: list[PackageRecord]) -> list[PackageRecord]:
    """Fill in ``duplicate_of``, ``fit``, ``selected``, ``l1`` and ``l2`` on every mined record.

    A copy is never selected: its original stands for it.
    """
    mined = [r for r in records if r.status == "mined"]
    copies = {c.name: c.kept for c in find_copies({r.name: r.tool_names() for r in mined})}
    for record in mined:
        names = record.tool_names()
        record.duplicate_of = copies.get(record.name, "")
        fit = assess(names)
        record.fit = fit.as_dict()
        record.selected = fit.selected and not record.duplicate_of
        if names:
            category = classify(record.name, names, record.summary_terms)
            record.l1, record.l2 = category.l1, category.l2
    return records

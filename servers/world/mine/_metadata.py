"""Name, version and licence from a package's core metadata (METADATA or PKG-INFO)."""

from __future__ import annotations

from dataclasses import dataclass
from email.parser import HeaderParser

__all__ = ["CoreMetadata", "parse_metadata", "MAX_LICENCE_CHARS"]

# A licence field longer than this is the licence's full text: the snapshot keeps names only.
MAX_LICENCE_CHARS = 80


@dataclass(frozen=True)
class CoreMetadata:
    name: str = ""
    version: str = ""
    licence: str = ""     # an SPDX expression or a short licence name; "" when none is declared
    summary: str = ""     # the author's words: used at build time, never pinned


def _licence(headers) -> str:
    expression = (headers.get("License-Expression") or "").strip()
    if expression:
        return expression[:MAX_LICENCE_CHARS]
    field = (headers.get("License") or "").strip()
    if field and "\n" not in field and len(field) <= MAX_LICENCE_CHARS and field != "UNKNOWN":
        return field
    for classifier in headers.get_all("Classifier") or []:
        if classifier.startswith("License ::"):
            return classifier.split("::")[-1].strip()
    return ""


def parse_metadata(text: str) -> CoreMetadata:
    """Parse core metadata headers; a missing or broken header block gives empty fields."""
    if not text:
        return CoreMetadata()
    headers = HeaderParser().parsestr(text, headersonly=True)
    return CoreMetadata((headers.get("Name") or "").strip(), (headers.get("Version") or "").strip(),
                        _licence(headers), (headers.get("Summary") or "").strip())

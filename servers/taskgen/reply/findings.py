"""What the claim reader reports: each contradiction, and the statements it left undecided."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Finding", "Reading"]


@dataclass(frozen=True)
class Finding:
    kind: str
    quote: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "quote": self.quote, "why": self.why}


@dataclass
class Reading:
    contradictions: list[Finding] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.contradictions


# ---- what the state holds ----------------------------------------------------------------

"""Reading an agent's final reply and holding it against the episode: the text (clauses,
context, hedges, weekdays), the acts it claims, what it says records are, and the verdict on
each; plus the optional LLM judge of what the reader cannot decide."""

from .facts import Finding, Reading, read_reply
from .judge import ClaimsJudge

__all__ = ["Finding", "Reading", "read_reply", "ClaimsJudge"]

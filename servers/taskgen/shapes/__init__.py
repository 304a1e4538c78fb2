"""Programmatic task shapes: small programs over an environment's declaration that find a
situation worth asking about and write it as a person's request, with the reference solution.

``SHAPES`` are the regular shapes, ``LONG_SHAPES`` the long-horizon ones (15+ calls, 3+ distinct
tools, 2+ entity types). Every shape returns ``None`` where the environment lacks what it needs.
"""

from __future__ import annotations

from . import decisions, edits, long, notes, questions, records  # noqa: F401  (register shapes)
from ._base import PAGE, Draft, Shape, ShapeContext, words
from ._common import LONG, REGULAR

__all__ = ["SHAPES", "LONG_SHAPES", "Draft", "Shape", "ShapeContext", "PAGE", "words"]

SHAPES: dict[str, Shape] = REGULAR
LONG_SHAPES: dict[str, Shape] = LONG

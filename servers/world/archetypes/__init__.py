"""Archetypes, one module per second-level category: ``ARCHETYPES`` (the kinds of service found
there) and ``LEAVES`` (the concrete services of the taxonomy's third level)."""

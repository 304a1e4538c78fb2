"""The hand-built reference environments. Each subpackage exposes ``DEFINITION``."""

"""Seed data: Lumen Labs, a 25-person software company, and its Notion workspace.

Ids are keyed hashes of stable names (``sid("pg", "eng-wiki")``), so tests and example calls can
name seeded objects without reading the database. All times fall between the workspace's start
(March 2024) and the evening before the environment's epoch (2026-03-02).
"""

from __future__ import annotations

import sqlite3

from .seed_pages import company, engineering, people_ops, product
from .seed_rows import databases
from .seed_threads import threads
from .seeder import Seeder, seed_members, seed_teamspaces

__all__ = ["seed"]


def seed(conn: sqlite3.Connection) -> None:
    """Fill a fresh schema with the Lumen Labs workspace."""
    seeder = Seeder(conn)
    seed_members(seeder)
    seed_teamspaces(seeder)
    company(seeder)
    engineering(seeder)
    product(seeder)
    people_ops(seeder)
    databases(seeder)
    threads(seeder)

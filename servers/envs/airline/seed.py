"""The seed of the airline template: network and flights, customers, then bookings."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from .seed_bookings import seed_bookings
from .seed_network import seed_network
from .seed_people import SeedIds, seed_people

SCHEMA_SQL = Path(__file__).with_name("schema.sql").read_text(encoding="utf-8")
SEED = 20260302


def seed(conn: sqlite3.Connection) -> None:
    """Fill an empty schema; the same database every time (one seeded RNG, no wall clock)."""
    rng = random.Random(SEED)
    ids = SeedIds()
    seed_network(conn, rng)
    customers = seed_people(conn, rng, ids)
    seed_bookings(conn, rng, ids, customers)

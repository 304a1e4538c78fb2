"""Seed of the customers: loyalty members, their saved cards and their travel credits."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import date, timedelta

from agentworld.servers.envs._people import people

PASSENGER_COUNT = 400
TIER_WEIGHTS = (("none", 55), ("silver", 22), ("gold", 15), ("platinum", 8))
POINTS_RANGE = {"none": (0, 18_000), "silver": (4_000, 60_000), "gold": (15_000, 150_000),
                "platinum": (40_000, 400_000)}
BRANDS = (("visa", 50), ("mastercard", 35), ("amex", 15))
ADULT_BORN_BY = date(2008, 3, 2)


class SeedIds:
    """Seed ids are a prefix and six digits; tool-made ids use ten hex digits, so never clash."""

    def __init__(self) -> None:
        self.counters: dict[str, int] = {}

    def new(self, prefix: str) -> str:
        self.counters[prefix] = self.counters.get(prefix, 0) + 1
        return f"{prefix}_{self.counters[prefix]:06d}"


@dataclass
class Customer:
    id: str
    tier: str
    born: date
    cards: list[str] = field(default_factory=list)
    vouchers: list[str] = field(default_factory=list)


def _weighted(rng: random.Random, pairs) -> str:
    return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


def _day(rng: random.Random, first: date, last: date) -> date:
    return first + timedelta(days=rng.randint(0, (last - first).days))


def seed_people(conn: sqlite3.Connection, rng: random.Random, ids: SeedIds) -> list[Customer]:
    customers = []
    for n, person in enumerate(people(PASSENGER_COUNT, seed=4117, domain="example.com")):
        tier = _weighted(rng, TIER_WEIGHTS)
        born = _day(rng, date(1948, 1, 1), date(2013, 12, 31))
        customer = Customer(f"pax_{1001 + n}", tier, born)
        joined = _day(rng, max(date(2012, 1, 1), born + timedelta(days=730)), date(2026, 2, 1))
        conn.execute("INSERT INTO passengers VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (
            customer.id, person.given, person.surname, person.email, born.isoformat(), tier,
            rng.randint(*POINTS_RANGE[tier]), joined.isoformat()))
        _seed_cards(conn, rng, ids, customer)
        _seed_credit(conn, rng, ids, customer)
        customers.append(customer)
    return customers


def _seed_cards(conn, rng, ids: SeedIds, customer: Customer) -> None:
    """Adults only: minors travel on a reservation an adult booked and paid for."""
    if rng.random() < 0.1 or customer.born > ADULT_BORN_BY:
        return
    for _ in range(2 if rng.random() < 0.3 else 1):
        card_id = ids.new("card")
        conn.execute("INSERT INTO payment_cards VALUES (?, ?, ?, ?, ?, ?)", (
            card_id, customer.id, _weighted(rng, BRANDS), f"{rng.randint(0, 9999):04d}",
            rng.randint(1, 12), rng.randint(2027, 2031)))
        customer.cards.append(card_id)


def _seed_credit(conn, rng, ids: SeedIds, customer: Customer) -> None:
    """Travel credits left over from earlier trips; a few have already expired."""
    if rng.random() >= 0.16:
        return
    issued = _day(rng, date(2025, 1, 10), date(2026, 2, 20))
    amount = rng.choice((5_000, 7_500, 10_000, 15_000, 20_000, 25_000, 40_000))
    voucher_id = ids.new("vch")
    conn.execute("INSERT INTO vouchers VALUES (?, ?, 'travel_credit', ?, ?, ?, ?, NULL, ?)", (
        voucher_id, customer.id, amount, amount, f"{issued.isoformat()}T15:00:00Z",
        (issued + timedelta(days=365)).isoformat(),
        rng.choice(("Residual value of an exchanged ticket", "Goodwill credit after a complaint",
                    "Credit for an unused non-refundable ticket"))))
    customer.vouchers.append(voucher_id)

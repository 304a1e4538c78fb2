"""Seed of the network: airports, fleet, routes, fare rules and three weeks of flights."""

from __future__ import annotations

import random
import sqlite3
from datetime import date

from .network import AIRCRAFT, airports, route_rows, schedule
from .pricing import FARE_RULES

# Busier days cost more: Friday and Sunday peaks, a mid-week trough (ISO weekday -> percent).
WEEKDAY_DEMAND = {1: 100, 2: 88, 3: 90, 4: 104, 5: 118, 6: 95, 7: 114}
# Delays are only known for flights that have flown or leave within the next half day.
DELAYS_KNOWN_UNTIL = "2026-03-02T21:00:00Z"


def seed_network(conn: sqlite3.Connection, rng: random.Random) -> None:
    conn.executemany(
        "INSERT INTO airports VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(a["iata"], a["icao"], a["name"], a["city"], a["country"], a["lat"], a["lon"], a["tz"])
         for a in airports()])
    for code, (name, layouts) in AIRCRAFT.items():
        conn.execute("INSERT INTO aircraft_types VALUES (?, ?)", (code, name))
        conn.executemany("INSERT INTO aircraft_cabins VALUES (?, ?, ?, ?, ?)",
                         [(code, c.cabin, c.first_row, c.last_row, c.letters) for c in layouts])
    conn.executemany("INSERT INTO routes VALUES (?, ?, ?, ?, ?)", route_rows())
    conn.executemany("INSERT INTO fare_rules VALUES (?, ?, ?, ?, ?, ?, ?, ?)", FARE_RULES)
    conn.executemany(
        "INSERT INTO flights VALUES (:id, :flight_number, :service_date, :route_id, "
        ":aircraft_code, :scheduled_departure, :scheduled_arrival, :status, :delay_minutes, "
        ":demand_pct)", [_operate(f, rng) for f in schedule()])


def _operate(flight: dict, rng: random.Random) -> dict:
    """Add what the day brought: a few cancellations and delays, and the demand level.

    The RNG is drawn the same number of times for every flight, so a change to one rule does not
    reshuffle the rest of the seed.
    """
    roll = rng.random()
    delay = rng.choice((25, 40, 55, 75, 95, 140, 185, 210, 260, 320))
    if roll < 0.02:
        status, delay = "cancelled", 0
    elif roll < 0.11 and flight["scheduled_departure"] <= DELAYS_KNOWN_UNTIL:
        status = "delayed"
    else:
        status, delay = "on_time", 0
    weekday = date.fromisoformat(flight["service_date"]).isoweekday()
    demand = max(70, min(140, WEEKDAY_DEMAND[weekday] + rng.randint(-12, 12)))
    return {**flight, "status": status, "delay_minutes": delay, "demand_pct": demand}

"""Trips for the seed: itineraries that connect, and an inventory that never oversells.

The inventory mirrors what the tools count (ticketed seats and live holds per flight and cabin,
one booking per passenger per flight, one passenger per seat), so the seeded world obeys the
same rules an agent is held to.
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from .network import AIRCRAFT
from .queries import parse_time

MIN_CONNECTION = timedelta(minutes=60)
MAX_CONNECTION = timedelta(hours=8)


@dataclass(frozen=True)
class Flight:
    id: str
    origin: str
    destination: str
    departure: datetime
    arrival: datetime
    aircraft: str
    status: str
    delay_minutes: int
    distance_km: int
    demand_pct: int

    @property
    def cabins(self) -> set[str]:
        return {layout.cabin for layout in AIRCRAFT[self.aircraft][1]}


class Inventory:
    def __init__(self, conn: sqlite3.Connection) -> None:
        rows = conn.execute(
            "SELECT f.id, r.origin, r.destination, f.scheduled_departure, f.scheduled_arrival, "
            "f.aircraft_code, f.status, f.delay_minutes, r.distance_km, f.demand_pct "
            "FROM flights f JOIN routes r ON r.id = f.route_id ORDER BY f.scheduled_departure, "
            "f.id").fetchall()
        self.flights = [Flight(r[0], r[1], r[2], parse_time(r[3]), parse_time(r[4]), *r[5:])
                        for r in rows]
        self.by_id = {f.id: f for f in self.flights}
        self.from_airport: dict[str, list[Flight]] = defaultdict(list)
        for flight in self.flights:
            self.from_airport[flight.origin].append(flight)
        self.sold: dict[tuple[str, str], int] = defaultdict(int)
        self.booked: set[tuple[str, str]] = set()
        self.taken: dict[str, set[str]] = defaultdict(set)

    # ---- capacity -----------------------------------------------------------------------
    def capacity(self, flight: Flight, cabin: str) -> int:
        layouts = {c.cabin: c for c in AIRCRAFT[flight.aircraft][1]}
        return layouts[cabin].capacity if cabin in layouts else 0

    def room(self, flights: list[Flight], cabin: str, pax: list[str]) -> bool:
        for flight in flights:
            if self.sold[(flight.id, cabin)] + len(pax) > self.capacity(flight, cabin):
                return False
            if any((p, flight.id) in self.booked for p in pax):
                return False
        return True

    def book(self, flights: list[Flight], cabin: str, pax: list[str], *, holds_seat: bool) -> None:
        for flight in flights:
            if holds_seat:
                self.sold[(flight.id, cabin)] += len(pax)
            self.booked.update((p, flight.id) for p in pax)

    def free_seat(self, flight: Flight, cabin: str, rng: random.Random) -> str | None:
        layout = next(c for c in AIRCRAFT[flight.aircraft][1] if c.cabin == cabin)
        free = [s for s in layout.seats() if s not in self.taken[flight.id]]
        if not free:
            return None
        seat = rng.choice(free)
        self.taken[flight.id].add(seat)
        return seat

    # ---- itineraries --------------------------------------------------------------------
    def _next(self, origin: str, destination: str, after: datetime,
              before: datetime) -> Flight | None:
        for flight in self.from_airport[origin]:
            if flight.destination == destination and after <= flight.departure <= before:
                return flight
        return None

    def _connection(self, first: Flight, rng: random.Random) -> Flight | None:
        options = [f for f in self.from_airport[first.destination]
                   if f.destination != first.origin
                   and first.arrival + MIN_CONNECTION <= f.departure <= first.arrival
                   + MAX_CONNECTION]
        return rng.choice(options) if options else None

    def _return(self, outbound: list[Flight], rng: random.Random) -> list[Flight] | None:
        legs: list[Flight] = []
        earliest = outbound[-1].arrival + timedelta(days=rng.randint(2, 8))
        for leg in reversed(outbound):
            window_end = earliest + (MAX_CONNECTION if legs else timedelta(days=4))
            flight = self._next(leg.destination, leg.origin, earliest, window_end)
            if flight is None:
                return None
            legs.append(flight)
            earliest = flight.arrival + MIN_CONNECTION
        return legs

    def itinerary(self, rng: random.Random) -> list[Flight]:
        first = rng.choice(self.flights)
        trip = [first]
        if rng.random() < 0.2:
            onward = self._connection(first, rng)
            if onward is not None:
                trip.append(onward)
        if rng.random() < 0.5:
            back = self._return(trip, rng)
            if back is not None:
                trip.extend(back)
        return trip

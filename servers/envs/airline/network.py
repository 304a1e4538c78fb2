"""Meridian Airways' network: real airports, aircraft seat maps, routes and the flight schedule.

Airports come from the shipped ``airports.csv`` (extracted from the MIT-licensed ``airportsdata``
package); distances are great-circle distances between their coordinates, and block times follow
from distance, so every flight's duration matches the map.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path

CARRIER = "MW"
CABINS = ("economy", "premium", "business")
EARTH_RADIUS_KM = 6371.0
# Average gate-to-gate speed plus a fixed allowance for taxi, climb and approach.
BLOCK_SPEED_KMH = 820
BLOCK_ALLOWANCE_MIN = 30
FIRST_SERVICE_DATE = date(2026, 2, 23)
SERVICE_DAYS = 21


@dataclass(frozen=True)
class CabinLayout:
    cabin: str
    first_row: int
    last_row: int
    letters: str

    def seats(self) -> list[str]:
        return [f"{row}{letter}" for row in range(self.first_row, self.last_row + 1)
                for letter in self.letters]

    @property
    def capacity(self) -> int:
        return (self.last_row - self.first_row + 1) * len(self.letters)


# Seat maps of the fleet. Row numbers skip between cabins, as on real aircraft.
AIRCRAFT: dict[str, tuple[str, tuple[CabinLayout, ...]]] = {
    "E175": ("Embraer 175", (CabinLayout("business", 1, 3, "ACD"),
                             CabinLayout("economy", 10, 25, "ACDF"))),
    "A321": ("Airbus A321neo", (CabinLayout("business", 1, 4, "ACDF"),
                                CabinLayout("premium", 7, 9, "ABCDEF"),
                                CabinLayout("economy", 12, 35, "ABCDEF"))),
    "B789": ("Boeing 787-9 Dreamliner", (CabinLayout("business", 1, 7, "ADGK"),
                                         CabinLayout("premium", 20, 23, "ACDEGHK"),
                                         CabinLayout("economy", 30, 56, "ABCDEFHJK"))),
}


@dataclass(frozen=True)
class RoutePlan:
    """A city pair flown both ways: flight numbers, aircraft, weekdays and UTC departure times."""

    number: int
    origin: str
    destination: str
    aircraft: str
    weekdays: str  # ISO weekdays, "1234567" = daily
    out_utc: str
    back_utc: str


DAILY, FOUR_WEEKLY, THREE_WEEKLY = "1234567", "1357", "246"
ROUTE_PLANS: tuple[RoutePlan, ...] = (
    RoutePlan(100, "JFK", "LHR", "B789", DAILY, "23:15", "10:40"),
    RoutePlan(110, "JFK", "LAX", "A321", DAILY, "13:00", "16:30"),
    RoutePlan(120, "ORD", "LAX", "A321", DAILY, "14:20", "21:05"),
    RoutePlan(130, "JFK", "ORD", "A321", DAILY, "12:10", "19:45"),
    RoutePlan(140, "JFK", "BOS", "E175", DAILY, "11:30", "14:15"),
    RoutePlan(150, "LAX", "SFO", "E175", DAILY, "16:00", "19:10"),
    RoutePlan(200, "JFK", "CDG", "B789", FOUR_WEEKLY, "22:40", "09:55"),
    RoutePlan(210, "ORD", "LHR", "B789", FOUR_WEEKLY, "23:50", "11:20"),
    RoutePlan(220, "LAX", "NRT", "B789", FOUR_WEEKLY, "18:30", "08:15"),
    RoutePlan(230, "LAX", "HNL", "A321", FOUR_WEEKLY, "17:45", "23:10"),
    RoutePlan(240, "ORD", "DEN", "A321", FOUR_WEEKLY, "15:05", "20:40"),
    RoutePlan(250, "JFK", "MIA", "A321", FOUR_WEEKLY, "13:35", "18:20"),
    RoutePlan(300, "JFK", "FRA", "B789", THREE_WEEKLY, "22:05", "10:10"),
    RoutePlan(310, "LAX", "SYD", "B789", THREE_WEEKLY, "05:30", "00:45"),
    RoutePlan(320, "ORD", "YYZ", "E175", THREE_WEEKLY, "13:15", "17:30"),
    RoutePlan(330, "LAX", "SEA", "E175", THREE_WEEKLY, "15:40", "20:15"),
    RoutePlan(340, "JFK", "MAD", "B789", THREE_WEEKLY, "23:30", "11:45"),
    RoutePlan(350, "LAX", "MEX", "A321", THREE_WEEKLY, "14:50", "20:30"),
)


@cache
def airports() -> tuple[dict[str, str | float], ...]:
    path = Path(__file__).with_name("airports.csv")
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return tuple({**r, "lat": float(r["lat"]), "lon": float(r["lon"])} for r in rows)


def great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float) -> int:
    """Haversine distance in whole kilometres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return round(2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h)))


def block_minutes(distance_km: int) -> int:
    """Scheduled gate-to-gate time, rounded to 5 minutes as airline timetables are."""
    raw = distance_km / BLOCK_SPEED_KMH * 60 + BLOCK_ALLOWANCE_MIN
    return int(5 * round(raw / 5))


def route_rows() -> list[tuple[str, str, str, int, int]]:
    """(id, origin, destination, distance_km, block_minutes) for both directions of each plan."""
    coords = {a["iata"]: (a["lat"], a["lon"]) for a in airports()}
    rows = []
    for plan in ROUTE_PLANS:
        for origin, dest in ((plan.origin, plan.destination), (plan.destination, plan.origin)):
            km = great_circle_km(*coords[origin], *coords[dest])
            rows.append((f"{origin}-{dest}", origin, dest, km, block_minutes(km)))
    return rows


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def service_dates() -> list[date]:
    return [FIRST_SERVICE_DATE + timedelta(days=i) for i in range(SERVICE_DAYS)]


def schedule() -> list[dict[str, str | int]]:
    """Every flight of the service window (without status or demand, which the seed adds)."""
    blocks = {row[0]: row[4] for row in route_rows()}
    flights = []
    for plan in ROUTE_PLANS:
        legs = ((plan.number + 1, plan.origin, plan.destination, plan.out_utc),
                (plan.number + 2, plan.destination, plan.origin, plan.back_utc))
        for day in service_dates():
            if str(day.isoweekday()) not in plan.weekdays:
                continue
            for number, origin, dest, hhmm in legs:
                hour, minute = map(int, hhmm.split(":"))
                dep = datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)
                arr = dep + timedelta(minutes=blocks[f"{origin}-{dest}"])
                flights.append({
                    "id": f"{CARRIER}{number}-{day.isoformat()}",
                    "flight_number": f"{CARRIER}{number}", "service_date": day.isoformat(),
                    "route_id": f"{origin}-{dest}", "aircraft_code": plan.aircraft,
                    "scheduled_departure": _stamp(dep), "scheduled_arrival": _stamp(arr)})
    return flights

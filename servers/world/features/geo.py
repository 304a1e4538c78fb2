"""Geo: the region's cities (GeoNames) with population, time zone and coordinates, and the
great-circle distance between them."""

from __future__ import annotations

import math
from typing import Any

from agentworld.servers import ToolContext, not_found
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import free_names, page, paging_props, rows

__all__ = ["Geo", "great_circle_km", "EARTH_RADIUS_KM"]

TABLE = "geo_cities"
EARTH_RADIUS_KM = 6371.0088  # the mean Earth radius (IUGG)
_TOOLS = ("lookup_city", "distance_between_cities", "list_cities")
_NAME = s.string("A city name (case does not matter).", max_length=100, min_length=1)


def great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """The haversine distance between two points, in kilometres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


class Geo:
    name = "geo"
    sources = frozenset({"cities"})

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, (TABLE,))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        b.schema.append(
            f"CREATE TABLE {TABLE} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    name TEXT NOT NULL CHECK (length(name) <= 100),\n"
            f"    name_key TEXT NOT NULL UNIQUE,\n"
            f"    population INTEGER NOT NULL CHECK (population >= 0),\n"
            f"    timezone TEXT NOT NULL,\n"
            f"    lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),\n"
            f"    lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180)\n);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        cities: dict[str, dict[str, str]] = {}
        for c in sorted(b.region.cities, key=lambda c: -int(c["population"])):
            cities.setdefault(c["name"].casefold(), c)  # the most populous of a shared name
        seeded = [(f"cty_{i + 1:04d}", c["name"], key, int(c["population"]), c["timezone"],
                   float(c["lat"]), float(c["lon"])) for i, (key, c) in enumerate(cities.items())]
        b.seeders.append(lambda conn, rng: conn.executemany(
            f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?, ?)", seeded))
        _add_tools(b)

        def unknown(db):
            known = rows(db, f"SELECT name FROM {TABLE} ORDER BY population DESC LIMIT 1")
            return [("distance_between_cities", {"from_city": k["name"], "to_city": "Atlantis"})
                    for k in known]

        b.add_rule(Rule("geo-known-city", f"Distances are measured only between cities of "
                        f"{b.region.name} in the gazetteer.", ("distance_between_cities",),
                        "NOT_FOUND"), unknown)


_CITY = s.obj({"id": s.string("The city id."), "name": s.string(),
               "population": s.integer(minimum=0), "timezone": s.string("IANA time zone."),
               "lat": s.number(minimum=-90, maximum=90), "lon": s.number(minimum=-180,
                                                                          maximum=180)})


def _city(ctx: ToolContext, name: str) -> dict[str, Any]:
    found = ctx.one(f"SELECT * FROM {TABLE} WHERE name_key = ?", (name.strip().casefold(),))
    if found is None:
        raise not_found("city", name)
    del found["name_key"]
    return found


def _add_tools(b: EnvBuilder) -> None:
    region = b.region.name

    def lookup_city(ctx: ToolContext, name: str) -> dict[str, Any]:
        return {"city": _city(ctx, name)}

    b.tools.tool(name="lookup_city", read_only=True,
                 description=f"Look up a city of {region} by name: population, time zone and "
                             "coordinates.",
                 input=s.obj({"name": _NAME}), output=s.obj({"city": _CITY}))(lookup_city)

    def distance_between_cities(ctx: ToolContext, from_city: str,
                                to_city: str) -> dict[str, Any]:
        a, b_ = _city(ctx, from_city), _city(ctx, to_city)
        km = great_circle_km(a["lat"], a["lon"], b_["lat"], b_["lon"])
        return {"from_city": a["name"], "to_city": b_["name"], "km": round(km, 1)}

    b.tools.tool(name="distance_between_cities", read_only=True,
                 description=f"The great-circle (as the crow flies) distance in kilometres "
                             f"between two cities of {region}.",
                 input=s.obj({"from_city": _NAME, "to_city": _NAME}),
                 output=s.obj({"from_city": s.string(), "to_city": s.string(),
                               "km": s.number(minimum=0)}))(distance_between_cities)

    def list_cities(ctx: ToolContext, min_population: int = 0, limit: int = 20,
                    cursor: str | None = None) -> dict[str, Any]:
        return page(ctx, select=TABLE, where=["population >= ?"], params=[min_population],
                    order="population DESC, name", limit=limit, cursor=cursor, key="cities",
                    out=lambda r: {k: v for k, v in r.items() if k != "name_key"})

    b.tools.tool(name="list_cities", read_only=True,
                 description=f"List the cities of {region}, most populous first, paged.",
                 input=s.obj({"min_population": s.integer("Least population.", minimum=0),
                              **paging_props()}, required=[]),
                 output=s.page_of(_CITY, "cities"))(list_cities)

    def names(db):
        return [r["name"] for r in rows(db, f"SELECT name FROM {TABLE} ORDER BY population "
                                            "DESC LIMIT 3")]

    b.probes["lookup_city"] = Probe(lambda db: [{"name": n.upper()} for n in names(db)],
                                    lambda db: [{"name": "Atlantis"}], "NOT_FOUND")
    b.probes["distance_between_cities"] = Probe(
        lambda db: [{"from_city": x, "to_city": y} for x, y in zip(names(db), names(db)[1:],
                                                                   strict=False)],
        lambda db: [{"from_city": "Atlantis", "to_city": n} for n in names(db)], "NOT_FOUND")
    b.probes["list_cities"] = Probe(lambda db: [{}], lambda db: [{"cursor": "x"}],
                                    "VALIDATION_ERROR")

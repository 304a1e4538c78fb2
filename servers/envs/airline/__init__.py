"""Meridian Airways: an airline reservation system (flights, holds, tickets, seats, refunds)."""

from __future__ import annotations

from agentworld.servers import EnvironmentDefinition

from . import tools_flights, tools_passengers, tools_reservations, tools_servicing  # noqa: F401
from .manifest import MANIFEST
from .seed import SCHEMA_SQL, seed
from .toolset import tools

__all__ = ["DEFINITION", "EXAMPLE_CALLS"]

DEFINITION = EnvironmentDefinition(manifest=MANIFEST, schema_sql=SCHEMA_SQL, seed=seed,
                                   tools=tools)

# Run in order in one fresh session (seed 0), every call succeeds and every tool is used. The
# new reservation's PNR and fare total are what seed 0 deterministically produces.
NEW_PNR = "C4UU26"
EXAMPLE_CALLS: list[tuple[str, dict]] = [
    ("search_airports", {"query": "new york"}),
    ("search_flights", {"origin": "JFK", "destination": "LHR", "date": "2026-03-05",
                        "cabin": "economy", "passengers": 2}),
    ("get_flight", {"flight_id": "MW101-2026-03-05"}),
    ("get_seat_map", {"flight_id": "MW101-2026-03-05", "cabin": "economy"}),
    ("get_fare_rules", {"cabin": "economy"}),
    ("find_passengers", {"query": "Liam Chen"}),
    ("get_passenger", {"passenger_id": "pax_1003"}),
    ("list_reservations", {"passenger_id": "pax_1003", "limit": 5}),
    ("create_reservation", {"passenger_ids": ["pax_1003", "pax_1004"],
                            "flight_ids": ["MW101-2026-03-05", "MW102-2026-03-10"],
                            "cabin": "economy", "fare_family": "standard"}),
    ("add_payment", {"pnr": NEW_PNR, "source": "card_000001", "amount_cents": 193_400}),
    ("confirm_reservation", {"pnr": NEW_PNR}),
    ("assign_seat", {"pnr": NEW_PNR, "flight_id": "MW101-2026-03-05",
                     "passenger_id": "pax_1003", "seat": "31A"}),
    ("add_baggage", {"pnr": NEW_PNR, "passenger_id": "pax_1004", "bags": 1}),
    ("get_reservation", {"pnr": NEW_PNR}),
    ("change_flight", {"pnr": "3P4L6R", "flight_id": "MW121-2026-03-06",
                       "new_flight_id": "MW121-2026-03-07", "source": "card_000247"}),
    ("cancel_reservation", {"pnr": "2JLV2E"}),
    ("issue_voucher", {"passenger_id": "pax_1005", "flight_id": "MW221-2026-03-11"}),
]

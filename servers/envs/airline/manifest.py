"""Manifest of the airline environment: identity, data sources and the business rules it keeps."""

from __future__ import annotations

from agentworld.servers import DataSource, Manifest, Rule, Taxonomy

PAYING = ("add_payment", "change_flight", "add_baggage")
SERVICING = ("change_flight", "assign_seat", "add_baggage")

RULES = (
    Rule("cabin-capacity", "A cabin is never sold beyond its seat map: ticketed passengers "
         "plus live holds must fit; booking or changing into a full cabin is refused.",
         ("create_reservation", "change_flight"), "CONFLICT"),
    Rule("no-double-booking", "A passenger cannot hold two bookings (tickets or live holds) on "
         "the same flight.", ("create_reservation", "change_flight"), "CONFLICT"),
    Rule("max-nine-passengers", "A reservation carries at most 9 passengers.",
         ("create_reservation",), "LIMIT_EXCEEDED"),
    Rule("sales-close-before-departure", "Flights are sold until 2 hours before their estimated "
         "departure, and flights the airline cancelled are not sold at all.",
         ("create_reservation", "change_flight"), "PRECONDITION_FAILED"),
    Rule("segments-must-connect", "Each flight of an itinerary leaves from the airport where "
         "the previous one lands, at least 60 minutes after it lands.",
         ("create_reservation", "change_flight"), "VALIDATION_ERROR"),
    Rule("fare-family-by-cabin", "Basic fares are sold only in economy, and a cabin can only be "
         "booked on aircraft that have it.", ("create_reservation",), "VALIDATION_ERROR"),
    Rule("hold-deadline", "A hold takes no payment and cannot be ticketed after its "
         "hold_expires_at; the customer must book again.",
         ("add_payment", "confirm_reservation"), "PRECONDITION_FAILED"),
    Rule("exact-payment", "A reservation is ticketed only when its fare payments add up to "
         "exactly the fare total.", ("confirm_reservation",), "PRECONDITION_FAILED"),
    Rule("no-overpayment", "Payments toward a hold may not exceed the balance due.",
         ("add_payment",), "VALIDATION_ERROR"),
    Rule("payer-owns-payment", "Cards and vouchers used on a reservation must belong to its "
         "contact passenger.", PAYING, "FORBIDDEN"),
    Rule("sufficient-funds", "A voucher or the loyalty points balance must cover the amount "
         "taken from it.", PAYING, "LIMIT_EXCEEDED"),
    Rule("voucher-not-expired", "An expired voucher cannot pay for anything.", PAYING,
         "PRECONDITION_FAILED"),
    Rule("ticketed-before-servicing", "Seats, bags and flight changes need a ticketed "
         "(confirmed) reservation.", SERVICING, "PRECONDITION_FAILED"),
    Rule("no-change-after-departure", "Nothing about a flight can be changed once it has "
         "departed, and a reservation with a departed flight cannot be cancelled.",
         ("change_flight", "cancel_reservation", "assign_seat", "add_baggage"),
         "PRECONDITION_FAILED"),
    Rule("basic-economy-unchangeable", "Basic economy fares cannot be changed (unless the "
         "airline cancelled the flight).", ("change_flight",), "FORBIDDEN"),
    Rule("change-keeps-route", "A flight change replaces a flight with another on the same "
         "origin and destination.", ("change_flight",), "VALIDATION_ERROR"),
    Rule("cancelled-is-final", "A cancelled reservation cannot be paid, ticketed, changed, "
         "seated, given bags or cancelled again.",
         ("add_payment", "confirm_reservation", "change_flight", "assign_seat", "add_baggage",
          "cancel_reservation"), "PRECONDITION_FAILED"),
    Rule("seat-must-exist", "Only seats on the aircraft's seat map can be assigned.",
         ("assign_seat",), "NOT_FOUND"),
    Rule("seat-in-booked-cabin", "A passenger can only be seated in the cabin they paid for.",
         ("assign_seat",), "FORBIDDEN"),
    Rule("seat-not-taken", "A seat already assigned to another passenger cannot be assigned.",
         ("assign_seat",), "CONFLICT"),
    Rule("bag-limit", "A passenger checks at most 5 bags.", ("add_baggage",), "LIMIT_EXCEEDED"),
    Rule("compensation-needs-disruption", "Compensation vouchers are issued only to ticketed "
         "passengers of flights cancelled or delayed by at least 3 hours.",
         ("issue_voucher",), "PRECONDITION_FAILED"),
    Rule("compensation-once", "A passenger is compensated at most once per flight.",
         ("issue_voucher",), "CONFLICT"),
)

MANIFEST = Manifest(
    id="airline",
    version="1.0.0",
    title="Meridian Airways reservations",
    description=(
        "The reservation system of Meridian Airways (MW), a fictional carrier with hubs at New "
        "York JFK, Chicago O'Hare and Los Angeles flying 36 routes between 17 real airports. "
        "Search flights and live seat inventory, hold and pay for reservations (card, voucher or "
        "loyalty points), ticket them, assign seats, add bags, change flights and cancel with "
        "refunds that follow the fare rules (basic, standard, flexible in economy, premium and "
        "business), and compensate passengers of disrupted flights. Three weeks of flights "
        "around 2026-03-02, some already flown, some sold out."),
    taxonomy=Taxonomy("Travel & Transportation", "Air travel", "Airline reservations"),
    rules=RULES,
    data_sources=(
        DataSource("airportsdata", "MIT",
                   "IATA code, ICAO code, name, city, country, coordinates and time zone of 78 "
                   "major airports, extracted from the airportsdata package (version 20260905, "
                   "github.com/mborsetti/airportsdata) into airports.csv; the city of six "
                   "airports was set to the metro area they serve (e.g. YYZ: Toronto) and one "
                   "abbreviated name spelled out."),
        DataSource("generated", "CC0-1.0",
                   "Airline, schedule, fares, passengers, reservations and payments generated "
                   "from a fixed seed; routes distances are great-circle distances between the "
                   "real airport coordinates."),
    ),
    tags=("travel", "airline", "booking", "payments", "refunds"),
    bookkeeping=(),
)

"""Seed of the bookings: reservations in every state, paid, seated and refunded by the real rules.

Payments and refunds go through the same ledger code the tools use, so every seeded total,
voucher balance and points balance is exactly what the tools would have produced.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from agentworld.servers.context import DeterministicClock, ToolContext

from . import ledger
from .pricing import (
    COMPENSATION,
    DISRUPTION_DELAY_MINUTES,
    MAX_BAGS,
    RULES,
    VOUCHER_VALID_DAYS,
    bag_allowance,
    fare_cents,
    paid_bag_fee,
    refund_quote,
)
from .queries import parse_time, stamp
from .seed_people import Customer, SeedIds
from .seed_trips import Flight, Inventory

EPOCH = parse_time("2026-03-02T09:00:00Z")
GENERAL_RESERVATIONS = 285
PNR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
PARTY_SIZES = ((1, 50), (2, 27), (3, 10), (4, 8), (5, 3), (6, 2))
FAMILY_WEIGHTS = {"economy": (("basic", 30), ("standard", 45), ("flexible", 25)),
                  "premium": (("standard", 60), ("flexible", 40)),
                  "business": (("standard", 55), ("flexible", 45))}
# Cabins that the seed sells out, to make the capacity rule bite: (aircraft, cabin).
SELL_OUTS = (("E175", "business"), ("E175", "business"), ("E175", "economy"), ("A321", "business"))


@dataclass
class Plan:
    pnr: str
    contact: Customer
    pax: list[Customer]
    trip: list[Flight]
    cabin: str
    family: str
    status: str
    created: datetime
    hold_expires: datetime
    confirmed: datetime | None = None
    cancelled: datetime | None = None


def _pick(rng: random.Random, pairs):
    return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


def _between(rng: random.Random, start: datetime, end: datetime) -> datetime:
    minutes = max(0, int((end - start).total_seconds() // 60))
    return start + timedelta(minutes=rng.randint(0, minutes))


class BookingSeeder:
    def __init__(self, conn: sqlite3.Connection, rng: random.Random, ids: SeedIds,
                 customers: list[Customer]) -> None:
        self.rng = rng
        self.inv = Inventory(conn)
        self.ctx = ToolContext(db=conn, clock=DeterministicClock(start=EPOCH), ids=ids, rng=rng)
        self.customers = customers
        self.payers = [c for c in customers if c.cards]
        self.tiers = {c.id: c.tier for c in customers}
        self.pnrs: set[str] = set()
        self.written: list[Plan] = []

    def run(self) -> None:
        attempts = 0
        while len(self.written) < GENERAL_RESERVATIONS and attempts < 10_000:
            attempts += 1
            plan = self._plan(self.inv.itinerary(self.rng))
            if plan is not None:
                self._write(plan)
        self._sell_out()
        self._compensate()

    # ---- planning -----------------------------------------------------------------------
    def _new_pnr(self) -> str:
        while True:
            pnr = "".join(self.rng.choice(PNR_ALPHABET) for _ in range(6))
            if pnr not in self.pnrs:
                self.pnrs.add(pnr)
                return pnr

    def _party(self, size: int) -> tuple[Customer, list[Customer]]:
        contact = self.rng.choice(self.payers)
        others = self.rng.sample([c for c in self.customers if c is not contact], size - 1)
        return contact, [contact, *others]

    def _cabin(self, trip: list[Flight]) -> str:
        offered = set.intersection(*(f.cabins for f in trip))
        wanted = _pick(self.rng, (("economy", 74), ("premium", 12), ("business", 14)))
        return wanted if wanted in offered else "economy"

    def _status(self, first: Flight) -> str:
        if first.departure <= EPOCH + timedelta(hours=3):
            return "cancelled" if self.rng.random() < 0.08 else "confirmed"
        roll = self.rng.random()
        return "held" if roll < 0.12 else "cancelled" if roll < 0.27 else "confirmed"

    def _plan(self, trip: list[Flight], *, status: str | None = None, size: int | None = None,
              cabin: str | None = None) -> Plan | None:
        contact, pax = self._party(size or _pick(self.rng, PARTY_SIZES))
        cabin = cabin or self._cabin(trip)
        status = status or self._status(trip[0])
        plan = Plan(self._new_pnr(), contact, pax, trip, cabin,
                    _pick(self.rng, FAMILY_WEIGHTS[cabin]), status, EPOCH, EPOCH)
        self._timeline(plan)
        if status != "cancelled" and not self.inv.room(trip, cabin, [p.id for p in pax]):
            self.pnrs.discard(plan.pnr)
            return None
        return plan

    def _timeline(self, plan: Plan) -> None:
        """Booking, ticketing and cancellation times that respect the hold and departure."""
        rng, first = self.rng, plan.trip[0].departure
        latest = min(EPOCH - timedelta(minutes=10), first - timedelta(hours=3))
        recent = plan.status in ("held", "confirmed") and rng.random() < (
            0.5 if plan.status == "held" else 0.1)
        start = EPOCH - timedelta(hours=20) if recent else first - timedelta(days=45)
        plan.created = _between(rng, min(start, latest), latest)
        plan.hold_expires = min(plan.created + timedelta(hours=24), first - timedelta(hours=2))
        ticket_by = min(plan.hold_expires - timedelta(minutes=1), EPOCH)
        cancels_hold = plan.status == "cancelled" and rng.random() < 0.1
        if plan.status != "held" and not cancels_hold:
            plan.confirmed = _between(rng, plan.created + timedelta(minutes=1),
                                      min(plan.created + timedelta(minutes=90), ticket_by))
        if plan.status == "cancelled":
            after = plan.confirmed or plan.created
            window = timedelta(hours=20) if rng.random() < 0.3 else timedelta(days=30)
            until = min(after + window, EPOCH, first - timedelta(hours=2))
            if cancels_hold:
                until = min(until, plan.hold_expires - timedelta(minutes=1))
            plan.cancelled = _between(rng, after + timedelta(minutes=1), until)

    # ---- writing ------------------------------------------------------------------------
    def _write(self, plan: Plan) -> None:
        fares = [fare_cents(f.distance_km, plan.cabin, plan.family, f.demand_pct)
                 for f in plan.trip]
        total = sum(fares) * len(plan.pax)
        res = {"pnr": plan.pnr, "contact_passenger_id": plan.contact.id, "status": plan.status,
               "cabin": plan.cabin, "fare_family": plan.family,
               "created_at": stamp(plan.created), "hold_expires_at": stamp(plan.hold_expires),
               "confirmed_at": plan.confirmed and stamp(plan.confirmed),
               "cancelled_at": plan.cancelled and stamp(plan.cancelled),
               "fare_total_cents": total}
        self.ctx.insert("reservations", res)
        for position, person in enumerate(plan.pax, start=1):
            self.ctx.insert("reservation_passengers", {"pnr": plan.pnr, "passenger_id": person.id,
                                                       "position": position, "checked_bags": 0})
        for seq, (flight, fare) in enumerate(zip(plan.trip, fares, strict=True), start=1):
            self.ctx.insert("segments", {"id": self.ctx.ids.new("seg"), "pnr": plan.pnr,
                                         "seq": seq, "flight_id": flight.id, "fare_cents": fare,
                                         "status": "active"})
        self._settle(plan, res, total)
        self.written.append(plan)

    def _settle(self, plan: Plan, res: dict, total: int) -> None:
        pax_ids = [p.id for p in plan.pax]
        if plan.status == "held":
            live = plan.hold_expires > EPOCH
            self.inv.book(plan.trip, plan.cabin, pax_ids, holds_seat=live)
            if self.rng.random() < 0.3:
                ledger.charge(self.ctx, res, plan.contact.cards[0], total // 2 // 100 * 100,
                              "fare", stamp(plan.created))
            return
        if plan.confirmed is not None:
            self._pay(plan, res, total)
        if plan.status == "confirmed":
            self.inv.book(plan.trip, plan.cabin, pax_ids, holds_seat=True)
            self._seat(plan)
            self._bags(plan, res)
        else:
            self._refund(plan, res, total)

    def _pay(self, plan: Plan, res: dict, total: int) -> None:
        """Mostly a card; sometimes a travel credit or points first, the card for the rest."""
        at, left = stamp(plan.confirmed), total
        voucher = next((v for v in plan.contact.vouchers if self._usable(v, at)), None)
        if voucher and self.rng.random() < 0.6:
            balance = self.ctx.scalar("SELECT balance_cents FROM vouchers WHERE id = ?",
                                      (voucher,))
            part = min(balance, left)
            ledger.charge(self.ctx, res, voucher, part, "fare", at)
            left -= part
        points = self.ctx.scalar("SELECT points_balance FROM passengers WHERE id = ?",
                                 (plan.contact.id,))
        if left and points >= 10_000 and self.rng.random() < 0.12:
            part = min(left, points // 2 // 100 * 100)
            ledger.charge(self.ctx, res, "points", part, "fare", at)
            left -= part
        if left:
            ledger.charge(self.ctx, res, plan.contact.cards[0], left, "fare", at)

    def _usable(self, voucher_id: str, at: str) -> bool:
        row = self.ctx.one("SELECT balance_cents, expires_on FROM vouchers WHERE id = ?",
                           (voucher_id,))
        return row["balance_cents"] > 0 and row["expires_on"] >= at[:10]

    def _seat(self, plan: Plan) -> None:
        for flight in plan.trip:
            for person in plan.pax:
                if self.rng.random() >= 0.65:
                    continue
                seat = self.inv.free_seat(flight, plan.cabin, self.rng)
                if seat is not None:
                    self.ctx.insert("seat_assignments", {
                        "flight_id": flight.id, "seat": seat, "pnr": plan.pnr,
                        "passenger_id": person.id, "assigned_at": stamp(plan.confirmed)})

    def _bags(self, plan: Plan, res: dict) -> None:
        rule = RULES[(plan.cabin, plan.family)]
        for person in plan.pax:
            allowance = bag_allowance(rule, person.tier)
            bags = self.rng.randint(0, allowance)
            if self.rng.random() < 0.12 and allowance < MAX_BAGS:
                bags = allowance + 1
                ledger.charge(self.ctx, res, plan.contact.cards[0], paid_bag_fee(0, 1),
                              "baggage", stamp(plan.confirmed))
            self.ctx.db.execute("UPDATE reservation_passengers SET checked_bags = ? "
                                "WHERE pnr = ? AND passenger_id = ?", (bags, plan.pnr, person.id))

    def _refund(self, plan: Plan, res: dict, total: int) -> None:
        quote = refund_quote(
            status="confirmed" if plan.confirmed else "held",
            rule=RULES[(plan.cabin, plan.family)],
            within_free_window=plan.cancelled < plan.created + timedelta(hours=24),
            airline_cancelled=any(f.status == "cancelled" for f in plan.trip),
            fare_paid=total if plan.confirmed else 0, bags_paid=0, passengers=len(plan.pax))
        if quote.amount_cents:
            ledger.refund(self.ctx, res, quote.amount_cents, stamp(plan.cancelled))

    # ---- sold-out cabins and disruption compensation -----------------------------------
    def _sell_out(self) -> None:
        later = [f for f in self.inv.flights if f.status == "on_time"
                 and f.departure > EPOCH + timedelta(days=2)]
        chosen: set[str] = set()
        for aircraft, cabin in SELL_OUTS:
            flight = self.rng.choice([f for f in later if f.aircraft == aircraft
                                      and f.id not in chosen])
            chosen.add(flight.id)
            self._fill(flight, cabin)

    def _fill(self, flight: Flight, cabin: str) -> None:
        while (left := self.inv.capacity(flight, cabin) - self.inv.sold[(flight.id, cabin)]) > 0:
            size = min(left, self.rng.choice((1, 1, 2, 2, 3, 4)))
            plan = self._plan([flight], status="confirmed", size=size, cabin=cabin)
            if plan is not None:
                self._write(plan)

    def _compensate(self) -> None:
        """About half the travellers of past disrupted flights have already been compensated."""
        for plan in self.written:
            if plan.status != "confirmed":
                continue
            for flight in plan.trip:
                kind = _disruption(flight)
                if kind is None or flight.departure > EPOCH or self.rng.random() < 0.5:
                    continue
                for person in plan.pax:
                    self._voucher(person, flight, kind, plan.cabin)

    def _voucher(self, person: Customer, flight: Flight, kind: str, cabin: str) -> None:
        issued = min(flight.arrival + timedelta(hours=4), EPOCH - timedelta(hours=1))
        amount = COMPENSATION[kind][cabin]
        self.ctx.insert("vouchers", {
            "id": self.ctx.ids.new("vch"), "passenger_id": person.id, "kind": "compensation",
            "amount_cents": amount, "balance_cents": amount, "issued_at": stamp(issued),
            "expires_on": (issued + timedelta(days=VOUCHER_VALID_DAYS)).date().isoformat(),
            "flight_id": flight.id, "reason": f"Compensation for {kind} flight {flight.id}"})


def _disruption(flight: Flight) -> str | None:
    if flight.status == "cancelled":
        return "cancelled"
    if flight.delay_minutes >= DISRUPTION_DELAY_MINUTES:
        return "delayed"
    return None


def seed_bookings(conn: sqlite3.Connection, rng: random.Random, ids: SeedIds,
                  customers: list[Customer]) -> None:
    BookingSeeder(conn, rng, ids, customers).run()

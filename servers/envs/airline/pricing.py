"""Money rules of Meridian Airways: fares, change costs, refunds, bag fees and compensation.

Pure functions over integers (USD cents), shared by the seed and the tools so that seeded
reservations are priced exactly as a booking made through the tools would be.
"""

from __future__ import annotations

from dataclasses import dataclass

# (cabin, fare_family, changeable, change_fee, refundable, cancel_fee, bags_included, price_pct)
FARE_RULES: tuple[tuple[str, str, int, int, int, int, int, int], ...] = (
    ("economy", "basic", 0, 0, 0, 0, 0, 80),
    ("economy", "standard", 1, 7_500, 1, 10_000, 1, 100),
    ("economy", "flexible", 1, 0, 1, 0, 1, 140),
    ("premium", "standard", 1, 7_500, 1, 10_000, 2, 100),
    ("premium", "flexible", 1, 0, 1, 0, 2, 135),
    ("business", "standard", 1, 15_000, 1, 20_000, 2, 100),
    ("business", "flexible", 1, 0, 1, 0, 3, 125),
)
CABIN_PCT = {"economy": 100, "premium": 175, "business": 360}
BASE_FARE_USD = 49.0
FARE_USD_PER_KM = 0.085

HOLD_HOURS = 24
FREE_CANCEL_HOURS = 24
BOOKING_CUTOFF_MINUTES = 120
MIN_CONNECTION_MINUTES = 60
MAX_PASSENGERS = 9
MAX_BAGS = 5
TIER_EXTRA_BAGS = {"none": 0, "silver": 1, "gold": 1, "platinum": 2}
# Fee of the 1st, 2nd and every further paid bag, per passenger for the whole trip.
PAID_BAG_FEES = (3_500, 4_500, 15_000)
DISRUPTION_DELAY_MINUTES = 180
COMPENSATION = {
    "cancelled": {"economy": 15_000, "premium": 20_000, "business": 30_000},
    "delayed": {"economy": 7_500, "premium": 10_000, "business": 15_000},
}
VOUCHER_VALID_DAYS = 365


@dataclass(frozen=True)
class FareRule:
    cabin: str
    fare_family: str
    changeable: bool
    change_fee_cents: int
    refundable: bool
    cancel_fee_cents: int
    checked_bags_included: int
    price_pct: int

    @classmethod
    def from_row(cls, row: dict) -> FareRule:
        return cls(row["cabin"], row["fare_family"], bool(row["changeable"]),
                   row["change_fee_cents"], bool(row["refundable"]), row["cancel_fee_cents"],
                   row["checked_bags_included"], row["price_pct"])


RULES = {(r[0], r[1]): FareRule(r[0], r[1], bool(r[2]), r[3], bool(r[4]), r[5], r[6], r[7])
         for r in FARE_RULES}


def fare_cents(distance_km: int, cabin: str, fare_family: str, demand_pct: int) -> int:
    """One passenger's fare for one flight, in whole dollars (as cents)."""
    usd = (BASE_FARE_USD + FARE_USD_PER_KM * distance_km) * CABIN_PCT[cabin] / 100
    usd = usd * RULES[(cabin, fare_family)].price_pct / 100 * demand_pct / 100
    return int(round(usd)) * 100


def change_cost(rule: FareRule, old_fare: int, new_fare: int, passengers: int, *,
                fee_waived: bool) -> tuple[int, int]:
    """(change fees, fare difference) for all passengers; a cheaper new fare is not refunded."""
    fees = 0 if fee_waived else rule.change_fee_cents * passengers
    return fees, max(0, new_fare - old_fare) * passengers


def paid_bag_fee(already_paid_bags: int, extra: int) -> int:
    """The fee for ``extra`` more paid bags when ``already_paid_bags`` were bought before."""
    total = 0
    for n in range(already_paid_bags, already_paid_bags + extra):
        total += PAID_BAG_FEES[min(n, len(PAID_BAG_FEES) - 1)]
    return total


def bag_allowance(rule: FareRule, tier: str) -> int:
    return rule.checked_bags_included + TIER_EXTRA_BAGS[tier]


@dataclass(frozen=True)
class RefundQuote:
    amount_cents: int
    basis: str


def refund_quote(*, status: str, rule: FareRule, within_free_window: bool,
                 airline_cancelled: bool, fare_paid: int, bags_paid: int,
                 passengers: int) -> RefundQuote:
    """What cancelling returns. Bag fees always come back: the bags were never flown.

    Order matters: an unticketed hold, the 24-hour window and an airline cancellation each give a
    full refund whatever the fare; only then do the fare's own rules apply.
    """
    if status == "held":
        return RefundQuote(fare_paid + bags_paid, "hold_released")
    if within_free_window:
        return RefundQuote(fare_paid + bags_paid, "free_24h_window")
    if airline_cancelled:
        return RefundQuote(fare_paid + bags_paid, "airline_cancelled_flight")
    if not rule.refundable:
        return RefundQuote(bags_paid, "non_refundable_fare")
    if rule.cancel_fee_cents == 0:
        return RefundQuote(fare_paid + bags_paid, "fully_refundable_fare")
    fare_back = max(0, fare_paid - rule.cancel_fee_cents * passengers)
    return RefundQuote(fare_back + bags_paid, "cancellation_fee_deducted")

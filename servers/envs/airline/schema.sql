-- Meridian Airways reservation system: network, inventory, customers, bookings and money.
-- All times are UTC ISO-8601 strings ("2026-03-02T09:00:00Z"); all money is integer USD cents.

CREATE TABLE airports (
    iata TEXT PRIMARY KEY CHECK (length(iata) = 3),
    icao TEXT NOT NULL UNIQUE CHECK (length(icao) = 4),
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL CHECK (length(country) = 2),
    lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
    lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
    tz TEXT NOT NULL
);

CREATE TABLE aircraft_types (
    code TEXT PRIMARY KEY,
    name TEXT NOT NULL
);

-- One block of rows per cabin; every seat is a row number plus one of the letters.
CREATE TABLE aircraft_cabins (
    aircraft_code TEXT NOT NULL REFERENCES aircraft_types(code),
    cabin TEXT NOT NULL CHECK (cabin IN ('economy', 'premium', 'business')),
    first_row INTEGER NOT NULL CHECK (first_row >= 1),
    last_row INTEGER NOT NULL,
    letters TEXT NOT NULL CHECK (length(letters) BETWEEN 2 AND 10),
    PRIMARY KEY (aircraft_code, cabin),
    CHECK (last_row >= first_row)
);

CREATE TABLE routes (
    id TEXT PRIMARY KEY,
    origin TEXT NOT NULL REFERENCES airports(iata),
    destination TEXT NOT NULL REFERENCES airports(iata),
    distance_km INTEGER NOT NULL CHECK (distance_km > 0),
    block_minutes INTEGER NOT NULL CHECK (block_minutes > 0),
    UNIQUE (origin, destination),
    CHECK (origin <> destination)
);

CREATE TABLE flights (
    id TEXT PRIMARY KEY,
    flight_number TEXT NOT NULL,
    service_date TEXT NOT NULL,
    route_id TEXT NOT NULL REFERENCES routes(id),
    aircraft_code TEXT NOT NULL REFERENCES aircraft_types(code),
    scheduled_departure TEXT NOT NULL,
    scheduled_arrival TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('on_time', 'delayed', 'cancelled')),
    delay_minutes INTEGER NOT NULL DEFAULT 0 CHECK (delay_minutes >= 0),
    demand_pct INTEGER NOT NULL CHECK (demand_pct BETWEEN 50 AND 200),
    UNIQUE (flight_number, service_date),
    CHECK (scheduled_arrival > scheduled_departure),
    CHECK ((status = 'delayed') = (delay_minutes > 0))
);
CREATE INDEX flights_by_route_date ON flights(route_id, service_date);

CREATE TABLE fare_rules (
    cabin TEXT NOT NULL CHECK (cabin IN ('economy', 'premium', 'business')),
    fare_family TEXT NOT NULL CHECK (fare_family IN ('basic', 'standard', 'flexible')),
    changeable INTEGER NOT NULL CHECK (changeable IN (0, 1)),
    change_fee_cents INTEGER NOT NULL CHECK (change_fee_cents >= 0),
    refundable INTEGER NOT NULL CHECK (refundable IN (0, 1)),
    cancel_fee_cents INTEGER NOT NULL CHECK (cancel_fee_cents >= 0),
    checked_bags_included INTEGER NOT NULL CHECK (checked_bags_included >= 0),
    price_pct INTEGER NOT NULL CHECK (price_pct > 0),
    PRIMARY KEY (cabin, fare_family)
);

CREATE TABLE passengers (
    id TEXT PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    date_of_birth TEXT NOT NULL,
    loyalty_tier TEXT NOT NULL CHECK (loyalty_tier IN ('none', 'silver', 'gold', 'platinum')),
    points_balance INTEGER NOT NULL CHECK (points_balance >= 0),
    member_since TEXT NOT NULL
);
CREATE INDEX passengers_by_name ON passengers(last_name, first_name);

CREATE TABLE payment_cards (
    id TEXT PRIMARY KEY,
    passenger_id TEXT NOT NULL REFERENCES passengers(id),
    brand TEXT NOT NULL CHECK (brand IN ('visa', 'mastercard', 'amex')),
    last4 TEXT NOT NULL CHECK (length(last4) = 4),
    exp_month INTEGER NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
    exp_year INTEGER NOT NULL CHECK (exp_year >= 2026)
);

CREATE TABLE vouchers (
    id TEXT PRIMARY KEY,
    passenger_id TEXT NOT NULL REFERENCES passengers(id),
    kind TEXT NOT NULL CHECK (kind IN ('travel_credit', 'compensation')),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    balance_cents INTEGER NOT NULL CHECK (balance_cents BETWEEN 0 AND amount_cents),
    issued_at TEXT NOT NULL,
    expires_on TEXT NOT NULL,
    flight_id TEXT REFERENCES flights(id),
    reason TEXT NOT NULL,
    CHECK ((kind = 'compensation') = (flight_id IS NOT NULL))
);
-- Disruption compensation is paid once per passenger per flight.
CREATE UNIQUE INDEX one_compensation_per_flight ON vouchers(passenger_id, flight_id)
    WHERE flight_id IS NOT NULL;

CREATE TABLE reservations (
    pnr TEXT PRIMARY KEY CHECK (length(pnr) = 6),
    contact_passenger_id TEXT NOT NULL REFERENCES passengers(id),
    status TEXT NOT NULL CHECK (status IN ('held', 'confirmed', 'cancelled')),
    cabin TEXT NOT NULL,
    fare_family TEXT NOT NULL,
    created_at TEXT NOT NULL,
    hold_expires_at TEXT NOT NULL,
    confirmed_at TEXT,
    cancelled_at TEXT,
    fare_total_cents INTEGER NOT NULL CHECK (fare_total_cents > 0),
    FOREIGN KEY (cabin, fare_family) REFERENCES fare_rules(cabin, fare_family),
    CHECK (hold_expires_at > created_at),
    CHECK (status <> 'confirmed' OR confirmed_at IS NOT NULL),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);
CREATE INDEX reservations_by_contact ON reservations(contact_passenger_id);

CREATE TABLE reservation_passengers (
    pnr TEXT NOT NULL REFERENCES reservations(pnr),
    passenger_id TEXT NOT NULL REFERENCES passengers(id),
    position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 9),
    checked_bags INTEGER NOT NULL DEFAULT 0 CHECK (checked_bags BETWEEN 0 AND 5),
    PRIMARY KEY (pnr, passenger_id),
    UNIQUE (pnr, position)
);
CREATE INDEX reservation_passengers_by_passenger ON reservation_passengers(passenger_id);

-- An exchanged segment stays as history; only one active segment per position.
CREATE TABLE segments (
    id TEXT PRIMARY KEY,
    pnr TEXT NOT NULL REFERENCES reservations(pnr),
    seq INTEGER NOT NULL CHECK (seq BETWEEN 1 AND 4),
    flight_id TEXT NOT NULL REFERENCES flights(id),
    fare_cents INTEGER NOT NULL CHECK (fare_cents > 0),
    status TEXT NOT NULL CHECK (status IN ('active', 'exchanged'))
);
CREATE UNIQUE INDEX one_active_segment_per_seq ON segments(pnr, seq) WHERE status = 'active';
CREATE INDEX segments_by_flight ON segments(flight_id);

CREATE TABLE seat_assignments (
    flight_id TEXT NOT NULL REFERENCES flights(id),
    seat TEXT NOT NULL,
    pnr TEXT NOT NULL,
    passenger_id TEXT NOT NULL,
    assigned_at TEXT NOT NULL,
    PRIMARY KEY (flight_id, seat),
    UNIQUE (flight_id, passenger_id),
    FOREIGN KEY (pnr, passenger_id) REFERENCES reservation_passengers(pnr, passenger_id)
);

CREATE TABLE payments (
    id TEXT PRIMARY KEY,
    pnr TEXT NOT NULL REFERENCES reservations(pnr),
    purpose TEXT NOT NULL CHECK (purpose IN ('fare', 'change', 'baggage')),
    method TEXT NOT NULL CHECK (method IN ('card', 'voucher', 'points')),
    card_id TEXT REFERENCES payment_cards(id),
    voucher_id TEXT REFERENCES vouchers(id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    created_at TEXT NOT NULL,
    CHECK ((method = 'card') = (card_id IS NOT NULL)),
    CHECK ((method = 'voucher') = (voucher_id IS NOT NULL))
);
CREATE INDEX payments_by_pnr ON payments(pnr);

CREATE TABLE refunds (
    id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL REFERENCES payments(id),
    pnr TEXT NOT NULL REFERENCES reservations(pnr),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    created_at TEXT NOT NULL
);
CREATE INDEX refunds_by_pnr ON refunds(pnr);

import datetime as dt
import re
import sqlite3

from agentworld.servers.world.data import pool, region, regions
from agentworld.servers.world.mined.model import build_model
from agentworld.servers.world.mined.ops import Table
from agentworld.servers.world.mined.seed import seed_tables, table_ddl

from ._surfaces import _p

# Pages name a table by its table_name, and tables sit on a page: a cycle of references.
CYCLE_TOOLS = [
    {"name": "create_page", "source": "decorator",
     "params": [_p("name", required=True), _p("table_name")]},
    {"name": "list_pages", "source": "decorator", "params": [_p("table_name")]},
    {"name": "get_table", "source": "decorator", "params": [_p("table_name", required=True)]},
    {"name": "create_table", "source": "decorator",
     "params": [_p("table_name", required=True), _p("page_id", required=True)]},
]


def _seeded(tools):
    model = build_model("report-mcp", tools)
    tables = {name: Table(e, name[:3]) for name, e in model.entities.items()}
    order = [tables[e.name] for e in model.order()]
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    conn.executescript("\n".join(table_ddl(t, tables) for t in order))
    seed_tables(conn, order, region(regions()[0]), 7)
    return conn


def test_a_cycle_of_references_never_makes_a_row_older_than_what_it_names():
    conn = _seeded(CYCLE_TOOLS)
    born = {r["table_name"]: r["created_at"] for r in conn.execute("SELECT * FROM tables")}
    pages = {r["id"]: r["created_at"] for r in conn.execute("SELECT * FROM pages")}
    for row in conn.execute("SELECT * FROM tables"):
        assert row["created_at"] >= pages[row["page_id"]]
    for row in conn.execute("SELECT * FROM pages WHERE table_name IS NOT NULL"):
        assert row["created_at"] >= born[row["table_name"]]


# A contact centre: agents sit at a location and belong to a person record; both locations and
# people belong to an organisation, and queues to a location.
GROUP_TOOLS = [
    {"name": "create_org", "source": "decorator", "params": [_p("name", required=True)]},
    {"name": "list_orgs", "source": "decorator", "params": []},
    {"name": "create_location", "source": "decorator",
     "params": [_p("name", required=True), _p("org_id", required=True)]},
    {"name": "create_person", "source": "decorator",
     "params": [_p("first_name", required=True), _p("last_name", required=True),
                _p("username"), _p("org_id", required=True), _p("location_id")]},
    {"name": "create_queue", "source": "decorator",
     "params": [_p("name", required=True), _p("location_id", required=True)]},
    {"name": "create_agent", "source": "decorator",
     "params": [_p("display_name", required=True), _p("location_id", required=True),
                _p("queue_id", required=True), _p("person_id", required=True)]},
    {"name": "list_agents", "source": "decorator",
     "params": [_p("location_id"), _p("before_id"), _p("external_id")]},
]


def test_a_rows_references_agree_on_the_groups_they_share():
    conn = _seeded(GROUP_TOOLS)
    one = lambda sql, *a: conn.execute(sql, a).fetchone()[0]  # noqa: E731
    rows = conn.execute("SELECT * FROM agents").fetchall()
    assert rows
    for row in rows:
        location_org = one("SELECT org_id FROM locations WHERE id = ?", row["location_id"])
        person = conn.execute("SELECT * FROM people WHERE id = ?", (row["person_id"],)).fetchone()
        queue_location = one("SELECT location_id FROM queues WHERE id = ?", row["queue_id"])
        assert person["org_id"] == location_org
        if person["location_id"] is not None:
            assert person["location_id"] == queue_location


def test_name_parts_and_logins_come_from_one_person_and_roles_do_not_share_people():
    conn = _seeded(GROUP_TOOLS)
    people = conn.execute("SELECT first_name, last_name, username FROM people").fetchall()
    for first, last, login in people:
        assert " " not in first and " " not in last
        assert login == f"{first}.{last}".lower() or login.startswith(f"{first}.{last}".lower())
    persons = {f"{first} {last}" for first, last, _ in people}
    agents = {r[0] for r in conn.execute("SELECT display_name FROM agents")}
    assert persons and agents and not persons & agents
    firsts, lasts = {p[0] for p in people}, {p[1] for p in people}
    assert not firsts & lasts


def test_paging_positions_and_outside_ids_are_not_records():
    model = build_model("callcentre-mcp", GROUP_TOOLS)
    assert "before" not in model.entities and "external" not in model.entities
    assert "external_id" in model.entities["agent"].columns


INDEX_TOOLS = [
    {"name": "create_track", "source": "decorator",
     "params": [_p("track_index", required=True), _p("name")]},
    {"name": "get_track", "source": "decorator", "params": [_p("track_index", required=True)]},
    {"name": "create_clip", "source": "decorator",
     "params": [_p("name", required=True), _p("track_index", "integer")]},
]


def test_an_integer_column_never_takes_a_text_keys_values():
    conn = _seeded(INDEX_TOOLS)
    values = [r[0] for r in conn.execute("SELECT track_index FROM clips")]
    assert values and all(v is None or isinstance(v, int) for v in values)


def test_a_display_name_names_the_record_unless_the_record_is_a_person():
    # google-analytics-4's properties once read "Hiroshi Okafor"; a contact's is a person's.
    conn = _seeded([
        {"name": "create_property", "source": "decorator",
         "params": [_p("display_name", required=True), _p("currency_code")]},
        {"name": "list_properties", "source": "decorator", "params": [_p("currency_code")]},
        {"name": "create_contact", "source": "decorator",
         "params": [_p("display_name", required=True), _p("email")]},
        {"name": "list_contacts", "source": "decorator", "params": []},
    ])
    properties = [r["display_name"] for r in conn.execute("SELECT display_name FROM properties")]
    assert properties and all(name.endswith(" property") for name in properties)
    contacts = [r["display_name"] for r in conn.execute("SELECT display_name FROM contacts")]
    assert contacts and not any("contact" in name for name in contacts)
    assert all(len(name.split()) == 2 and name.istitle() for name in contacts)


def test_prices_in_micros_are_whole_cents_and_a_sale_price_agrees_with_its_price():
    # Google Merchant Center's inventories: a price of 2,355 micros (a quarter of a cent) in
    # EUR, and a sale price of 4,232 micros in CNY, above it.
    conn = _seeded([
        {"name": "insert_inventory", "source": "decorator",
         "params": [_p("product_id", required=True), _p("price_amount_micros", "integer"),
                    _p("price_currency"), _p("sale_price_amount_micros", "integer"),
                    _p("sale_price_currency")]},
        {"name": "list_inventories", "source": "decorator", "params": []},
        {"name": "create_transfer", "source": "decorator",
         "params": [_p("amount", "number"), _p("from_currency"), _p("to_currency")]},
        {"name": "list_transfers", "source": "decorator", "params": []},
    ])
    rows = conn.execute("SELECT * FROM inventories").fetchall()
    assert rows
    for r in rows:
        assert r["price_amount_micros"] >= 5_000_000 and r["price_amount_micros"] % 10_000 == 0
        assert 0.59 <= r["sale_price_amount_micros"] / r["price_amount_micros"] <= 0.96
        assert r["sale_price_amount_micros"] % 10_000 == 0
        assert r["sale_price_currency"] == r["price_currency"]
    payments = conn.execute("SELECT from_currency, to_currency FROM transfers").fetchall()
    assert any(p["from_currency"] != p["to_currency"] for p in payments)


def test_an_event_lasts_part_of_a_day_and_is_held_in_a_city_of_the_region():
    # deciduus-calendar: events from 2025-12-07 to 2026-01-31, at "Finance location".
    conn = _seeded([
        {"name": "create_event", "source": "decorator",
         "params": [_p("summary", required=True), _p("start_time", required=True),
                    _p("end_time", required=True), _p("location")]},
        {"name": "find_events", "source": "decorator", "params": []},
        {"name": "create_shift", "source": "decorator",
         "params": [_p("name", required=True), _p("start_time"), _p("end_time")]},
        {"name": "list_shifts", "source": "decorator", "params": []},
    ])
    cities = set(pool("city", regions()[0]))

    def hours(r) -> float:
        start, end = (dt.datetime.strptime(r[c], "%Y-%m-%dT%H:%M:00Z")
                      for c in ("start_time", "end_time"))
        return (end - start).total_seconds() / 3600

    events = conn.execute("SELECT * FROM events").fetchall()
    assert events
    for r in events:
        assert 0.5 <= hours(r) <= 3 and hours(r) * 4 == int(hours(r) * 4)
        assert r["location"] in cities
    shifts = conn.execute("SELECT * FROM shifts").fetchall()
    assert shifts and all(4 <= hours(r) <= 10 for r in shifts)


def test_ad_accounts_are_companies_and_a_clusters_applications_are_services():
    # google-ads had accounts named "Fjord retail account"; talkops-argocd applications
    # "Fjord retail application".
    tools = [{"name": "create_account", "source": "decorator",
              "params": [_p("name", required=True)]},
             {"name": "list_accounts", "source": "decorator", "params": []},
             {"name": "create_application", "source": "decorator",
              "params": [_p("name", required=True), _p("cluster_id", required=True)]},
             {"name": "create_cluster", "source": "decorator",
              "params": [_p("name", required=True)]}]
    conn = _seeded(tools)
    companies = set(pool("company", regions()[0]))
    accounts = [r[0] for r in conn.execute("SELECT name FROM accounts")]
    assert accounts and set(accounts) <= companies and len(set(accounts)) == len(accounts)
    apps = [r[0] for r in conn.execute("SELECT name FROM applications")]
    assert apps and all(re.fullmatch(r"[a-z]+-[a-z]+(-\d+)?", a) for a in apps)
    assert len(set(apps)) == len(apps)

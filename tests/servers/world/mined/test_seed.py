import sqlite3

from agentworld.servers.world.data import region, regions
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

"""Two small environments for the learning benchmark, with many tasks of a few kinds each.

``todo`` (to-do lists: complete an item, add an item) and ``stock`` (a shop's inventory: set a
product's stock, answer its price after looking it up). Tasks of one kind differ only in their
arguments, so the held-out tasks (every fourth one, split ``eval``: entities never seen in
training) test whether a model learnt the skill, not the task. Each held-out task also comes
reworded with a template training never uses (split ``paraphrase``). Every train task is also
reworded three more ways (split ``reworded``, id suffix ``-rwK``): prompts with a verifier but no
demonstration, for reinforcement learning. No rewording repeats the held-out template. Every
verifier fails on the untouched database.
"""

from __future__ import annotations

import random
import re
from decimal import Decimal

from agentworld.servers import (
    DataSource,
    EnvironmentDefinition,
    Manifest,
    Taxonomy,
    Toolset,
)
from agentworld.servers import schema as s
from agentworld.servers.tasks import Task, Verdict, VerifierInput

__all__ = ["TODO", "STOCK", "DEFINITIONS"]

LISTS = {"lst_home": "Home", "lst_work": "Work", "lst_errands": "Errands"}
# The seeded items, ten a list: item ``itm_{i}`` is the (i // 3)th title of list i % 3.
SEEDED = {
    "lst_home": ["Fix the dripping kitchen tap", "Clean the gutters", "Defrost the freezer",
                 "Replace the hallway bulb", "Mow the back lawn", "Descale the kettle",
                 "Sort the recycling", "Bleed the radiators", "Wash the car",
                 "Hang the bathroom mirror"],
    "lst_work": ["Draft the Q3 budget", "Review the pull request from Priya",
                 "Book the offsite venue",
                 "Update the onboarding guide", "Send the minutes of the Monday meeting",
                 "Renew the TLS certificate", "Prepare slides for the board",
                 "File the expense report", "Reply to the auditor", "Plan the next sprint"],
    "lst_errands": ["Post the parcel to Gran", "Pick up the dry cleaning",
                    "Return the library books", "Collect the prescription",
                    "Get the bike serviced", "Renew the passport", "Drop off the donation bags",
                    "Buy a birthday card for Sam", "Pay the parking fine", "Get spare keys cut"],
}
N_ITEMS = 30
# Items the add tasks ask for, one list after another (Home, Work, Errands, Home, ...).
NEW_TITLES = ["Buy milk", "Book a meeting room for Thursday", "Buy stamps", "Order printer ink",
              "Send the invoice to Acme", "Pick up the train tickets", "Buy paint for the fence",
              "Chase the signed contract", "Buy AA batteries", "Call the plumber",
              "Email the draft to Marco", "Buy flowers for Mum"]


# -- todo ---------------------------------------------------------------------------------------
TODO_SCHEMA = """
CREATE TABLE lists (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE items (id TEXT PRIMARY KEY, list_id TEXT NOT NULL REFERENCES lists(id),
                    title TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open');
"""
_LIST_IDS = list(LISTS)


def _item(i: int) -> tuple[str, str, str]:
    """``(item_id, list_id, title)`` of seeded item ``i``."""
    list_id = _LIST_IDS[i % 3]
    return f"itm_{i}", list_id, SEEDED[list_id][i // 3]


def _todo_seed(conn) -> None:
    conn.executemany("INSERT INTO lists VALUES (?, ?)", LISTS.items())
    conn.executemany("INSERT INTO items VALUES (?, ?, ?, 'open')",
                     [_item(i) for i in range(N_ITEMS)])


ITEM = s.obj({"id": s.string(), "list_id": s.string(), "title": s.string(),
              "status": s.enum(["open", "done"])})
todo_tools = Toolset()


@todo_tools.tool(description="List the items of a list.", read_only=True,
                 input=s.obj({"list_id": s.identifier("The list's id, e.g. lst_home.")}),
                 output=s.obj({"items": s.array(ITEM)}))
def list_items(ctx, list_id):
    ctx.require("lists", list_id, kind="list")
    return {"items": ctx.all("SELECT * FROM items WHERE list_id = ? ORDER BY id", (list_id,))}


@todo_tools.tool(description="Add an item to a list.",
                 input=s.obj({"list_id": s.identifier("The list's id, e.g. lst_home."),
                              "title": s.string("The item's title.", min_length=1)}),
                 output=s.obj({"item": ITEM}))
def add_item(ctx, list_id, title):
    ctx.require("lists", list_id, kind="list")
    item = {"id": ctx.ids.new("itm"), "list_id": list_id, "title": title, "status": "open"}
    ctx.insert("items", item)
    return {"item": item}


@todo_tools.tool(description="Mark an item done.",
                 input=s.obj({"item_id": s.identifier("The item's id, e.g. itm_12.")}),
                 output=s.obj({"item": ITEM}))
def complete_item(ctx, item_id):
    item = ctx.require("items", item_id, kind="item")
    ctx.update("items", item_id, {"status": "done"})
    return {"item": {**item, "status": "done"}}


def _complete_verifier(item_id: str):
    def verify(run: VerifierInput) -> Verdict:
        row = run.final_one("SELECT status FROM items WHERE id = ?", (item_id,))
        done = row is not None and row["status"] == "done"
        others = run.final.execute("SELECT count(*) FROM items WHERE status = 'done' AND id <> ?",
                                   (item_id,)).fetchone()[0]
        return Verdict.from_checks({"done": done, "nothing else": done and others == 0})
    return verify


def _add_verifier(list_id: str, title: str):
    def verify(run: VerifierInput) -> Verdict:
        n = run.final.execute("SELECT count(*) FROM items WHERE list_id = ? AND lower(title) = ?",
                              (list_id, title.lower())).fetchone()[0]
        total = run.final.execute("SELECT count(*) FROM items").fetchone()[0]
        return Verdict.from_checks({"added": n >= 1, "once": n == 1 and total == N_ITEMS + 1})
    return verify


def _todo_tasks() -> tuple[Task, ...]:
    tasks = []
    for i in range(N_ITEMS):
        item_id, _list_id, title = _item(i)
        tasks.append(Task(
            id=f"complete-{i}", env_id="todo", prompt=f"Mark '{title}' ({item_id}) as done.",
            verifier=_complete_verifier(item_id), max_steps=4,
            reference_calls=(("complete_item", {"item_id": item_id}),),
            metadata={"paraphrase": f"'{title}' ({item_id}) is finished: tick it off.",
                      "rewordings": (f"Please set '{title}' ({item_id}) to done.",
                                     f"I have finished '{title}', item {item_id}. Can you "
                                     "close it?",
                                     f"'{title}' ({item_id}) can be checked off now.")}))
    for k, title in enumerate(NEW_TITLES):
        list_id = _LIST_IDS[k % 3]
        slug = "-".join(title.lower().replace("'", "").split())
        tasks.append(Task(
            id=f"add-{slug}", env_id="todo",
            prompt=f"Add '{title}' to the {LISTS[list_id]} list ({list_id}).",
            verifier=_add_verifier(list_id, title), max_steps=4,
            reference_calls=(("add_item", {"list_id": list_id, "title": title}),),
            metadata={"paraphrase": f"Put a new entry '{title}' on list {list_id} "
                                    f"({LISTS[list_id]}).",
                      "rewordings": (
                          f"Please create an item '{title}' in my {LISTS[list_id]} list "
                          f"({list_id}).",
                          f"My {LISTS[list_id]} list ({list_id}) needs a new item: '{title}'.",
                          f"Can you note '{title}' on the {LISTS[list_id]} list, id {list_id}?")}))
    return _with_splits(tasks)


# -- stock --------------------------------------------------------------------------------------
STOCK_SCHEMA = """
CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL,
                       stock INTEGER NOT NULL);
"""
# A hardware shop's range: (name, price). Stock levels are drawn per product.
RANGE = [("Claw hammer, 16 oz", "18.99"), ("Cordless drill, 18 V", "89.00"),
         ("Wood screws 4 x 40 mm, box of 200", "7.49"), ("Masking tape, 25 mm", "3.25"),
         ("Paint roller set", "12.50"), ("Exterior wood paint, 2.5 l", "34.99"),
         ("Tape measure, 5 m", "9.99"), ("Spirit level, 600 mm", "15.75"),
         ("Safety glasses", "6.50"), ("Work gloves, size L", "8.99"),
         ("Extension lead, 4 way, 5 m", "14.25"), ("LED bulb, E27, 806 lm", "4.99"),
         ("Silicone sealant, white", "5.79"), ("Adjustable spanner, 250 mm", "16.40"),
         ("Sandpaper assortment, 20 sheets", "7.99"), ("Wall plugs, box of 100", "3.99"),
         ("Hacksaw, 300 mm", "11.25"), ("Step ladder, 3 tread", "39.00"),
         ("Cable ties, pack of 100", "4.50"), ("Wood glue, 250 ml", "6.25"),
         ("Pliers set, 3 piece", "19.99"), ("Dust sheet, 3.6 x 2.7 m", "5.50"),
         ("Screwdriver set, 6 piece", "13.99"), ("Brass padlock, 40 mm", "9.25")]
N_PRODUCTS = len(RANGE)


def _products() -> list[tuple[str, str, str, int]]:
    rng = random.Random(7)
    return [(f"SKU-{100 + i}", name, price, rng.randint(0, 60))
            for i, (name, price) in enumerate(RANGE)]


def _stock_seed(conn) -> None:
    conn.executemany("INSERT INTO products VALUES (?, ?, ?, ?)", _products())


PRODUCT = s.obj({"sku": s.string(), "name": s.string(), "price": s.string(),
                 "stock": s.integer()})
stock_tools = Toolset()


@stock_tools.tool(description="Look up a product by its SKU.", read_only=True,
                  input=s.obj({"sku": s.identifier("The product's SKU, e.g. SKU-101.")}),
                  output=s.obj({"product": PRODUCT}))
def get_product(ctx, sku):
    return {"product": ctx.require("products", sku, kind="product", column="sku")}


@stock_tools.tool(description="Set how many units of a product are in stock.",
                  input=s.obj({"sku": s.identifier("The product's SKU, e.g. SKU-101."),
                               "quantity": s.integer("Units in stock.", minimum=0)}),
                  output=s.obj({"product": PRODUCT}))
def set_stock(ctx, sku, quantity):
    product = ctx.require("products", sku, kind="product", column="sku")
    ctx.update("products", sku, {"stock": quantity}, column="sku")
    return {"product": {**product, "stock": quantity}}


def _stock_verifier(sku: str, quantity: int):
    def verify(run: VerifierInput) -> Verdict:
        sql = "SELECT sku, stock FROM products WHERE sku <> ? ORDER BY sku"
        others_same = (run.final.execute(sql, (sku,)).fetchall()
                       == run.initial.execute(sql, (sku,)).fetchall())
        row = run.final_one("SELECT stock FROM products WHERE sku = ?", (sku,))
        ok = row is not None and row["stock"] == quantity
        return Verdict.from_checks({"stock set": ok, "nothing else": ok and others_same})
    return verify


def _price_verifier(price: str):
    """The answer is the price: "5.50", "5.5", "$5.50" and "SKU-121 costs 5.50" all pass; another
    amount, or a reply with two amounts in it, does not. A question changes nothing: GRPO from
    a model that had just learnt "set" answered price questions by calling ``set_stock`` (which
    returns the product, price included) and was paid for it while overwriting the stock."""
    def verify(run: VerifierInput) -> Verdict:
        text = re.sub(r"SKU-\d+", "", (run.answer or "").replace(",", ""))
        amounts = re.findall(r"\d+(?:\.\d+)?", text)
        ok = len(amounts) == 1 and Decimal(amounts[0]) == Decimal(price)
        sql = "SELECT sku, name, price, stock FROM products ORDER BY sku"
        unchanged = run.final.execute(sql).fetchall() == run.initial.execute(sql).fetchall()
        return Verdict.from_checks({"answer": ok, "nothing changed": unchanged})
    return verify


def _stock_tasks() -> tuple[Task, ...]:
    rng = random.Random(11)
    tasks = []
    for sku, _name, price, stock in _products():
        quantity = next(q for q in iter(lambda: rng.randint(1, 80), None) if q != stock)
        tasks.append(Task(
            id=f"set-{sku}", env_id="stock", prompt=f"Set the stock of {sku} to {quantity}.",
            verifier=_stock_verifier(sku, quantity), max_steps=4,
            reference_calls=(("set_stock", {"sku": sku, "quantity": quantity}),),
            metadata={"paraphrase": f"We counted {quantity} units of {sku} on the shelf; "
                                    "record that count.",
                      "rewordings": (f"Update {sku}: there are now {quantity} units in stock.",
                                     f"Change the stock level for {sku} to {quantity} units.",
                                     f"Inventory for {sku} should read {quantity}. Please fix it.")
                      }))
        tasks.append(Task(
            id=f"price-{sku}", env_id="stock", prompt=f"What is the price of {sku}?",
            verifier=_price_verifier(price), max_steps=4, reference_answer=price,
            reference_calls=(("get_product", {"sku": sku}),),
            metadata={"paraphrase": f"How much does {sku} cost?",
                      "rewordings": (f"Tell me the price of product {sku}.",
                                     f"I need the current price of {sku}.",
                                     f"What does {sku} sell for?")}))
    return _with_splits(tasks)


def _with_splits(tasks: list[Task]) -> tuple[Task, ...]:
    """Every fourth task of each kind is held out (split ``eval``), and again reworded (split
    ``paraphrase``, id suffix ``-para``); the others train (split ``train``), and come reworded
    too (split ``reworded``, id suffix ``-rwK``)."""
    seen: dict[str, int] = {}
    out = []
    for task in tasks:
        kind = task.id.split("-")[0]
        n = seen[kind] = seen.get(kind, -1) + 1
        split = "eval" if n % 4 == 3 else "train"
        meta = {k: v for k, v in task.metadata.items() if k not in ("paraphrase", "rewordings")}
        out.append(Task(**{**task.__dict__, "metadata": {**meta, "split": split}}))
        if split == "eval":
            out.append(Task(**{**task.__dict__, "id": f"{task.id}-para",
                               "prompt": task.metadata["paraphrase"],
                               "metadata": {**meta, "split": "paraphrase"}}))
            continue
        for k, prompt in enumerate(task.metadata["rewordings"]):
            out.append(Task(**{**task.__dict__, "id": f"{task.id}-rw{k}", "prompt": prompt,
                               "metadata": {**meta, "split": "reworded"}}))
    return tuple(out)


def _manifest(env_id: str, title: str, description: str, taxonomy: Taxonomy) -> Manifest:
    return Manifest(id=env_id, version="1.0.0", title=title, description=description,
                    taxonomy=taxonomy, rules=(),
                    data_sources=(DataSource("generated", "CC0-1.0", "Written for the bench."),))


TODO = EnvironmentDefinition(
    manifest=_manifest("todo", "To-do lists", "Three to-do lists of numbered items.",
                       Taxonomy("Communication & General Utilities", "Productivity",
                                "To-do list")),
    schema_sql=TODO_SCHEMA, seed=_todo_seed, tools=todo_tools, tasks=_todo_tasks())
STOCK = EnvironmentDefinition(
    manifest=_manifest("stock", "Shop inventory", "A shop's products, prices and stock.",
                       Taxonomy("Data Storage & Databases", "Inventory", "Stock keeping")),
    schema_sql=STOCK_SCHEMA, seed=_stock_seed, tools=stock_tools, tasks=_stock_tasks())
DEFINITIONS = (TODO, STOCK)

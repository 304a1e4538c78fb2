"""A small release in the Agent-World format, written by the tests (FACTS.md describes it).

``environment_mix/0000001`` is a well-behaved library (books, members, loans) whose tools use
wall-clock time and uuid4 like the release's; ``0000002`` is a widget shop with tools that
misbehave on purpose; ``0000003`` is broken (its checkpoint is not JSON) and must fail to import.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

LIBRARY, WIDGETS, BROKEN = "0000001", "0000002", "0000003"

_LOAD_SAVE = '''
import json
import os
import uuid
from datetime import datetime


def _load(name):
    with open(os.path.join(os.environ["MCP_DB_DIR"], name + ".json")) as f:
        return json.load(f)


def _save(name, rows):
    with open(os.path.join(os.environ["MCP_DB_DIR"], name + ".json"), "w") as f:
        json.dump(rows, f, indent=2)
'''


def _impl(body: str) -> str:
    return _LOAD_SAVE + "\n\n" + textwrap.dedent(body).strip() + "\n"


def _schema(properties: dict, required: list[str] | None = None, **extra) -> dict:
    # Like the release: plain object schemas, mostly without additionalProperties.
    return {"type": "object", "properties": properties, "required": required or [], **extra}


STR = {"type": "string"}

LIBRARY_TOOLS = [
    {"name": "list_books", "description": "List the books, optionally of one genre.",
     "parameters": _schema({"genre": STR}),
     "implementation": _impl('''
        def list_books(genre=None, **_extra):
            books = _load("books")
            if genre:
                books = [b for b in books if b["genre"] == genre]
            return {"books": books, "count": len(books)}
     ''')},
    {"name": "get_book", "description": "One book by id.",
     "parameters": _schema({"book_id": STR}, ["book_id"], additionalProperties=False),
     "implementation": _impl('''
        def get_book(book_id, **_extra):
            for book in _load("books"):
                if book["id"] == book_id:
                    return {"book": book}
            return {"error": {"code": "BOOK_NOT_FOUND", "message": f"no book {book_id}"}}
     ''')},
    {"name": "borrow_book", "description": "Lend a book to a member.",
     "parameters": _schema({"member_id": STR, "book_id": STR}, ["member_id", "book_id"]),
     "implementation": _impl('''
        def borrow_book(member_id, book_id, **_extra):
            books, members, loans = _load("books"), _load("members"), _load("loans")
            if not any(m["id"] == member_id for m in members):
                return {"error": {"code": "MEMBER_NOT_FOUND", "message": "no such member"}}
            book = next((b for b in books if b["id"] == book_id), None)
            if book is None:
                return {"error": {"code": "NOT_FOUND", "message": "no such book"}}
            if book["status"] != "available":
                return {"error": {"code": "INVALID_STATE", "message": "the book is on loan"}}
            book["status"] = "on_loan"
            loan = {"id": str(uuid.uuid4()), "member_id": member_id, "book_id": book_id,
                    "borrowed_at": datetime.now().isoformat(), "meta": {"renewals": 0}}
            loans.append(loan)
            _save("books", books)
            _save("loans", loans)
            return {"loan": loan}
     ''')},
    {"name": "add_member", "description": "Register a member; e-mails are unique.",
     "parameters": _schema({"name": STR, "email": STR}, ["name", "email"]),
     "implementation": _impl('''
        def add_member(name, email, **_extra):
            members = _load("members")
            if any(m["email"] == email for m in members):
                return {"error": {"code": "ALREADY_EXISTS", "message": "e-mail taken"}}
            member = {"id": "mem_" + uuid.uuid4().hex[:8], "name": name, "email": email,
                      "joined": datetime.utcnow().strftime("%Y-%m-%d")}
            members.append(member)
            _save("members", members)
            return {"member": member}
     ''')},
    {"name": "submit", "description": "Suggest a book for purchase (a reserved name).",
     "parameters": _schema({"title": STR}, ["title"]),
     "implementation": _impl('''
        def submit(title, **_extra):
            return {"suggested": title}
     ''')},
    {"name": "count_loans", "description": "How many loans exist.",
     "parameters": None,
     "implementation": _impl('''
        def count_loans(**_extra):
            return {"loans": len(_load("loans"))}
     ''')},
    {"name": "broken_syntax", "description": "Its code does not parse.",
     "parameters": _schema({}),
     "implementation": "def broken_syntax(**_extra):\n    return {\n"},
]

WIDGET_TOOLS = [
    {"name": "get_widget", "description": "One widget by id.",
     "parameters": _schema({"widget_id": STR}, ["widget_id"]),
     "implementation": _impl('''
        def get_widget(widget_id, **_extra):
            for w in _load("widgets"):
                if w["id"] == widget_id:
                    return {"widget": w}
            return {"error": {"code": "NOT_FOUND", "message": "no widget"}}
     ''')},
    {"name": "spin_forever", "description": "Never returns.",
     "parameters": _schema({}),
     "implementation": "def spin_forever(**_extra):\n    while True:\n        pass\n"},
    {"name": "phone_home", "description": "Tries to reach the network.",
     "parameters": _schema({"host": STR}),
     "implementation": textwrap.dedent('''
        def phone_home(host="example.com", **_extra):
            try:
                import socket
                socket.create_connection((host, 80), timeout=1)
            except Exception as exc:
                # It swallows the refusal: the sandbox must still report it.
                return {"error": {"code": "NETWORK", "message": str(exc)}}
            return {"ok": True}
     ''')},
    {"name": "read_secrets", "description": "Reads a file outside its folder.",
     "parameters": _schema({}),
     "implementation": textwrap.dedent('''
        def read_secrets(**_extra):
            with open("/etc/passwd") as f:
                return {"passwd": f.read()}
     ''')},
    {"name": "junk_reply", "description": "Returns something that is not an object.",
     "parameters": _schema({}),
     "implementation": "def junk_reply(**_extra):\n    return [1, 2, 3]\n"},
    {"name": "explode", "description": "Raises.",
     "parameters": _schema({}),
     "implementation": "def explode(**_extra):\n    return {'x': 1 / 0}\n"},
    {"name": "write_then_fail", "description": "Writes, then raises half-way.",
     "parameters": _schema({"name": STR}, ["name"]),
     "implementation": _impl('''
        def write_then_fail(name, **_extra):
            widgets = _load("widgets")
            widgets.append({"id": "w_new", "name": name, "price": 1.0, "tags": []})
            _save("widgets", widgets)
            raise RuntimeError("half-way")
     ''')},
]

LIBRARY_DATA = {
    "books": [
        {"id": "bk_1", "title": "Dune", "genre": "scifi", "status": "available", "year": 1965},
        {"id": "bk_2", "title": "Emma", "genre": "classic", "status": "available", "year": 1815},
        {"id": "bk_3", "title": "Neuromancer", "genre": "scifi", "status": "on_loan",
         "year": 1984},
    ],
    "members": [{"id": "mem_1", "name": "Ada", "email": "ada@example.org",
                 "joined": "2025-01-02"}],
    "loans": [{"id": "ln_0", "member_id": "mem_1", "book_id": "bk_3",
               "borrowed_at": "2025-02-01T10:00:00", "meta": {"renewals": 1}}],
}

WIDGET_DATA = {"widgets": [{"id": "w_1", "name": "Sprocket", "price": 2.5, "tags": ["metal"]},
                           {"id": "w_2", "name": "Gear", "price": 4.0, "tags": []}]}

LIBRARY_README = """# Neighbourhood Library

A small lending library: books, members and loans.

## Lifecycle
A book is `available` or `on_loan`.

## Business rules
- A book on loan cannot be borrowed again.
- Member e-mails are unique.
"""


def _write_env(mix: Path, number: str, data: dict, readme: str, checkpoint: dict,
               questions: list | None = None) -> None:
    folder = mix / number
    folder.mkdir(parents=True)
    for name, rows in data.items():
        (folder / f"{name}.json").write_text(json.dumps(rows, indent=2))
    (folder / "README.md").write_text(readme)
    (mix / f"{number}_step4_checkpoint.json").write_text(json.dumps(checkpoint, indent=1))
    if questions is not None:
        (mix / f"{number}_questions.json").write_text(json.dumps(questions, indent=1))


def write_release(root: Path) -> Path:
    """Write the fixture release under ``root``; returns ``root``."""
    mix = root / "environment_mix"
    _write_env(mix, LIBRARY, LIBRARY_DATA, LIBRARY_README, {"data": {
        "ThemeAgent": {"category": "Communication & General Utilities",
                       "subcategory": "Libraries", "theme": "Book lending",
                       "title": "Neighbourhood Library"},
        "ToolDesignAgent": {"tool_schemas": LIBRARY_TOOLS}}},
        questions=[{"task": "How many science-fiction books does the library hold?",
                    "reference_answer": "2",
                    "grading_rubric": [{"check": "answers 2", "points": 1}]},
                   {"task": "Who is the only member?", "reference_answer": "Ada",
                    "grading_rubric": "names Ada"}])
    _write_env(mix, WIDGETS, WIDGET_DATA, "# Widget Shop\n\nWidgets for sale.\n", {"data": {
        "meta": {"domain": "Software Development", "subcategory": "Testing",
                 "theme": "Misbehaving tools"},
        "ToolDesignAgent": {"tool_schemas": WIDGET_TOOLS}}})
    (mix / BROKEN).mkdir()
    (mix / BROKEN / "things.json").write_text("[]")
    (mix / f"{BROKEN}_step4_checkpoint.json").write_text("{not json")
    return root

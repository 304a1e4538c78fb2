"""A small release in the Agent-World layout, written by the tests (FACTS.md describes it).

The layout is the release's as published: ``environment_mix/<id>/`` data folders,
``<id>_step4_checkpoint.json`` with the tools under ``data.ToolDesignAgent.tool_schemas`` and a
top-level ``metadata`` block (taxonomy L1/L2/L3, description), and ``questions/<id>.json``
dicts with a ``tasks`` list. Each implementation is one function in the release's style: the
helpers (``_load``, ``_save``, ``_err``) are nested in its body, every tool defines ``_save``,
and only the ones that write call it. The tool code here is written for these tests.

* ``0000001``: a lending library, mostly reads (for graph synthesis), some tools return lists;
* ``0000002``: a widget shop whose tools misbehave on purpose, with older metadata
  (``data.meta``), to check the fallbacks;
* ``0000003``: broken (its checkpoint is not JSON), must fail to import;
* ``0000004``: a mail desk that uses ``email``, ``zoneinfo``, ``csv``, ``secrets``, a CSV file,
  an ``.eml`` file and a dict-shaped collection, and returns the release's error payloads
  (``UNAUTHORIZED`` with extra fields, a plain-string error). Its questions live only in
  ``questions.parquet`` when pyarrow is installed.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

LIBRARY, WIDGETS, BROKEN, MAILDESK = "0000001", "0000002", "0000003", "0000004"

_PRELUDE = '''\
    import json, os, datetime, time, uuid, re
    _DB = os.environ.get("MCP_DB_DIR") or "/app/database"
    def _load(n):
        try:
            with open(os.path.join(_DB, n), encoding="utf-8") as f:
                return json.load(f)
        except Exception:
            return []
    def _save(n, d):
        with open(os.path.join(_DB, n), "w", encoding="utf-8") as f:
            json.dump(d, f, ensure_ascii=False, indent=2)
    def _err(code, msg, **x):
        return {"error": {"code": code, "message": msg, **x}}
'''


def _impl(signature: str, body: str) -> str:
    """One release-style implementation: ``def name(args, **_extra):`` with nested helpers."""
    return (f"def {signature}:\n" + _PRELUDE
            + textwrap.indent(textwrap.dedent(body).strip(), "    ") + "\n")


def _schema(properties: dict, required: list[str] | None = None, **extra) -> dict:
    # Like the release: plain object schemas, mostly without additionalProperties.
    return {"type": "object", "properties": properties, "required": required or [], **extra}


STR = {"type": "string"}
INT = {"type": "integer"}


def _tool(name: str, description: str, parameters, signature: str, body: str) -> dict:
    return {"name": name, "description": description, "parameters": parameters,
            "implementation": _impl(signature, body)}


LIBRARY_TOOLS = [
    _tool("list_books", "List the books, optionally of one genre.", _schema({"genre": STR}),
          "list_books(genre=None, **_extra)", '''
        books = _load("books.json")
        if genre:
            books = [b for b in books if b["genre"] == genre]
        return {"books": books, "count": len(books)}
    '''),
    _tool("get_book", "One book by id.",
          _schema({"book_id": STR}, ["book_id"], additionalProperties=False),
          "get_book(book_id, **_extra)", '''
        for book in _load("books.json"):
            if book["id"] == book_id:
                return {"book": book}
        return _err("BOOK_NOT_FOUND", f"no book {book_id}")
    '''),
    _tool("list_authors", "Every author, as a JSON list.", _schema({}),
          "list_authors(**_extra)", '''
        return _load("authors.json")
    '''),
    _tool("get_author", "One author by id, with their books.", _schema({"author_id": STR},
                                                                      ["author_id"]),
          "get_author(author_id, **_extra)", '''
        author = next((a for a in _load("authors.json") if a["id"] == author_id), None)
        if author is None:
            return _err("NOT_FOUND", "no such author", author_id=author_id)
        books = [b for b in _load("books.json") if b["author_id"] == author_id]
        return {"author": author, "books": books}
    '''),
    _tool("get_member", "One member by id.", _schema({"member_id": STR}, ["member_id"]),
          "get_member(member_id, **_extra)", '''
        member = next((m for m in _load("members.json") if m["id"] == member_id), None)
        if member is None:
            return _err("MEMBER_NOT_FOUND", "no such member")
        return {"member": member}
    '''),
    _tool("member_loans", "The loans of one member, as a JSON list.",
          _schema({"member_id": STR}, ["member_id"]),
          "member_loans(member_id, **_extra)", '''
        return [loan for loan in _load("loans.json") if loan["member_id"] == member_id]
    '''),
    _tool("count_books", "How many books there are, as a bare number.", _schema({}),
          "count_books(**_extra)", '''
        return len(_load("books.json"))
    '''),
    _tool("borrow_book", "Lend a book to a member.",
          _schema({"member_id": STR, "book_id": STR}, ["member_id", "book_id"]),
          "borrow_book(member_id, book_id, **_extra)", '''
        books, members, loans = _load("books.json"), _load("members.json"), _load("loans.json")
        if not any(m["id"] == member_id for m in members):
            return _err("MEMBER_NOT_FOUND", "no such member")
        book = next((b for b in books if b["id"] == book_id), None)
        if book is None:
            return _err("NOT_FOUND", "no such book")
        if book["status"] != "available":
            return _err("INVALID_STATE", "the book is on loan", status=book["status"])
        book["status"] = "on_loan"
        loan = {"id": str(uuid.uuid4()), "member_id": member_id, "book_id": book_id,
                "borrowed_at": datetime.datetime.now().isoformat(), "meta": {"renewals": 0}}
        loans.append(loan)
        _save("books.json", books)
        _save("loans.json", loans)
        return {"loan": loan}
    '''),
    _tool("add_member", "Register a member; e-mails are unique.",
          _schema({"name": STR, "email": STR}, ["name", "email"]),
          "add_member(name, email, **_extra)", '''
        members = _load("members.json")
        if any(m["email"] == email for m in members):
            return _err("ALREADY_EXISTS", "e-mail taken")
        member = {"id": "mem_" + uuid.uuid4().hex[:8], "name": name, "email": email,
                  "joined": datetime.datetime.utcnow().strftime("%Y-%m-%d")}
        members.append(member)
        _save("members.json", members)
        return {"member": member}
    '''),
    _tool("submit", "Suggest a book for purchase (a reserved name).", _schema({"title": STR},
                                                                              ["title"]),
          "submit(title, **_extra)", '''
        return {"suggested": title}
    '''),
    _tool("count_loans", "How many loans exist.", None, "count_loans(**_extra)", '''
        return {"loans": len(_load("loans.json"))}
    '''),
    {"name": "broken_syntax", "description": "Its code does not parse.",
     "parameters": _schema({}), "implementation": "def broken_syntax(**_extra):\n    return {\n"},
]

WIDGET_TOOLS = [
    _tool("get_widget", "One widget by id.", _schema({"widget_id": STR}, ["widget_id"]),
          "get_widget(widget_id, **_extra)", '''
        for w in _load("widgets.json"):
            if w["id"] == widget_id:
                return {"widget": w}
        return _err("NOT_FOUND", "no widget")
    '''),
    {"name": "spin_forever", "description": "Never returns.", "parameters": _schema({}),
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
    {"name": "junk_reply", "description": "Returns something that is not JSON.",
     "parameters": _schema({}),
     "implementation": "def junk_reply(**_extra):\n    return {'x': float('nan')}\n"},
    {"name": "explode", "description": "Raises.", "parameters": _schema({}),
     "implementation": "def explode(**_extra):\n    return {'x': 1 / 0}\n"},
    _tool("write_then_fail", "Writes, then raises half-way.",
          _schema({"name": STR}, ["name"]), "write_then_fail(name, **_extra)", '''
        widgets = _load("widgets.json")
        widgets.append({"id": "w_new", "name": name, "price": 1.0, "tags": []})
        _save("widgets.json", widgets)
        raise RuntimeError("half-way")
    '''),
]

MAILDESK_TOOLS = [
    _tool("read_message", "Parse one stored e-mail (.eml) and return its headers and body.",
          _schema({"message_id": STR}, ["message_id"]),
          "read_message(message_id, **_extra)", '''
        import email
        from email import policy
        from email.utils import parsedate_to_datetime
        path = os.path.join(_DB, "inbox", message_id + ".eml")
        if not os.path.isfile(path):
            return _err("NOT_FOUND", "no such message", message_id=message_id)
        with open(path, "rb") as f:
            msg = email.message_from_binary_file(f, policy=policy.default)
        return {"from": msg["From"], "subject": msg["Subject"],
                "sent": parsedate_to_datetime(msg["Date"]).isoformat(),
                "body": msg.get_body(preferencelist=("plain",)).get_content().strip()}
    '''),
    _tool("compose_reply", "Draft a reply with a fresh Message-ID.",
          _schema({"message_id": STR, "text": STR}, ["message_id", "text"]),
          "compose_reply(message_id, text, **_extra)", '''
        from email.message import EmailMessage
        from email.utils import make_msgid
        drafts = _load("drafts.json")
        msg = EmailMessage()
        msg["Subject"] = "Re: " + message_id
        msg["Message-ID"] = make_msgid()
        msg.set_content(text)
        draft = {"id": "dr_" + uuid.uuid4().hex[:10], "message_id": message_id,
                 "header_id": msg["Message-ID"], "raw": msg.as_string()}
        drafts.append(draft)
        _save("drafts.json", drafts)
        return {"draft": draft}
    '''),
    _tool("local_time", "When a meeting starts in one user's time zone.",
          _schema({"user": STR, "meeting_id": STR}, ["user", "meeting_id"]),
          "local_time(user, meeting_id, **_extra)", '''
        from zoneinfo import ZoneInfo
        settings = _load("settings.json")
        if user not in settings:
            return {"error": "unknown user " + user}
        meeting = next((m for m in _load("meetings.json") if m["id"] == meeting_id), None)
        if meeting is None:
            return _err("NOT_FOUND", "no such meeting")
        when = datetime.datetime.fromisoformat(meeting["starts_at_utc"])
        zone = settings[user]["timezone"]
        return {"user": user, "zone": zone,
                "local": when.replace(tzinfo=datetime.timezone.utc)
                             .astimezone(ZoneInfo(zone)).isoformat()}
    '''),
    _tool("contacts", "The address book (a CSV file) as a JSON list of rows.", _schema({}),
          "contacts(**_extra)", '''
        import csv
        with open(os.path.join(_DB, "contacts.csv"), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    '''),
    _tool("issue_token", "Issue an API token for a user.", _schema({"user": STR}, ["user"]),
          "issue_token(user, **_extra)", '''
        import secrets
        tokens = _load("tokens.json")
        token = {"user": user, "token": secrets.token_hex(8),
                 "salt": os.urandom(4).hex(), "ref": str(uuid.uuid4())}
        tokens.append(token)
        _save("tokens.json", tokens)
        return token
    '''),
    _tool("admin_report", "Administrators only.", _schema({"api_key": STR}, ["api_key"]),
          "admin_report(api_key, **_extra)", '''
        keys = {k["key"]: k for k in _load("api_keys.json")}
        if api_key not in keys or keys[api_key]["role"] != "admin":
            return _err("UNAUTHORIZED", "this key may not read the report",
                        allowed=["admin"], role=keys.get(api_key, {}).get("role"))
        return {"messages": len(os.listdir(os.path.join(_DB, "inbox")))}
    '''),
]

LIBRARY_DATA = {
    "authors": [
        {"id": "au_1", "name": "Frank Herbert", "country": "US"},
        {"id": "au_2", "name": "Jane Austen", "country": "GB"},
        {"id": "au_3", "name": "William Gibson", "country": "US"},
        {"id": "au_4", "name": "Ursula K. Le Guin", "country": "US"},
    ],
    "books": [
        {"id": "bk_1", "title": "Dune", "genre": "scifi", "status": "available", "year": 1965,
         "author_id": "au_1"},
        {"id": "bk_2", "title": "Emma", "genre": "classic", "status": "available",
         "year": 1815, "author_id": "au_2"},
        {"id": "bk_3", "title": "Neuromancer", "genre": "scifi", "status": "on_loan",
         "year": 1984, "author_id": "au_3"},
        {"id": "bk_4", "title": "Persuasion", "genre": "classic", "status": "available",
         "year": 1817, "author_id": "au_2"},
        {"id": "bk_5", "title": "The Dispossessed", "genre": "scifi", "status": "available",
         "year": 1974, "author_id": "au_4"},
        {"id": "bk_6", "title": "Count Zero", "genre": "scifi", "status": "on_loan",
         "year": 1986, "author_id": "au_3"},
    ],
    "members": [
        {"id": "mem_1", "name": "Ada", "email": "ada@example.org", "joined": "2025-01-02"},
        {"id": "mem_2", "name": "Grace", "email": "grace@example.org", "joined": "2025-03-09"},
    ],
    "loans": [
        {"id": "ln_0", "member_id": "mem_1", "book_id": "bk_3",
         "borrowed_at": "2025-02-01T10:00:00", "meta": {"renewals": 1}},
        {"id": "ln_1", "member_id": "mem_2", "book_id": "bk_6",
         "borrowed_at": "2025-04-11T15:30:00", "meta": {"renewals": 0}},
    ],
}

WIDGET_DATA = {"widgets": [{"id": "w_1", "name": "Sprocket", "price": 2.5, "tags": ["metal"]},
                           {"id": "w_2", "name": "Gear", "price": 4.0, "tags": []}]}

MAILDESK_DATA = {
    "settings": {"ana": {"user": "ana", "timezone": "Europe/Lisbon", "signature": "A."},
                 "kenji": {"user": "kenji", "timezone": "Asia/Tokyo", "signature": "K."}},
    "messages": [{"id": "msg_1", "file": "inbox/msg_1.eml", "folder": "inbox"}],
    "meetings": [{"id": "mt_1", "title": "Quarterly review", "starts_at_utc": "2026-03-05T09:00"}],
    "api_keys": [{"key": "key-admin", "role": "admin"}, {"key": "key-guest", "role": "guest"}],
    "drafts": [],
    "tokens": [],
}
MAILDESK_FILES = {
    "contacts.csv": "name,email,city\nAna Silva,ana@example.org,Lisbon\n"
                    "Kenji Sato,kenji@example.org,Tokyo\n",
    "inbox/msg_1.eml": "From: Ana Silva <ana@example.org>\nTo: desk@example.org\n"
                       "Subject: Quarterly numbers\nDate: Tue, 03 Mar 2026 09:15:00 +0000\n"
                       "Message-ID: <msg_1@example.org>\nContent-Type: text/plain\n\n"
                       "Please send the quarterly numbers by Friday.\n",
}

LIBRARY_README = """# Neighbourhood Library

A small lending library: books, members and loans.

## Lifecycle
A book is `available` or `on_loan`.

## Business rules
- A book on loan cannot be borrowed again.
- Member e-mails are unique.
"""

LIBRARY_METADATA = {
    "env_id": LIBRARY, "index": 1, "name": "Neighbourhood Library MCP Server",
    "description": "Lends books to members and answers questions about the catalogue.",
    "taxonomy": {"L1_id": "L1-20", "L1_name": "Communication & General Utilities",
                 "L2_id": "L2-45", "L2_name": "Libraries", "L3_name": "Book lending"},
    "database_dir": f"./environment_mix/{LIBRARY}", "database_dir_env_var": "MCP_DB_DIR",
    "n_tools": len(LIBRARY_TOOLS), "n_collections": len(LIBRARY_DATA), "n_questions": 3}

LIBRARY_QUESTIONS = [
    {"task": "How many science-fiction books does the library hold?",
     "reference_answer": "4",
     "grading_rubric": {"success_criteria": ["The answer says 4."],
                        "verified_tool_chain": [{"tool": "list_books",
                                                 "args": {"genre": "scifi"}}]}},
    {"task": "Who is member mem_1?", "reference_answer": "Ada",
     "grading_rubric": {"success_criteria": ["Names Ada."], "verified_tool_chain": []}},
    # The answer is the last tool's raw output, as in many of the release's questions.
    {"task": "Show me everything about author au_2 and their books.",
     "reference_answer": json.dumps({"author": LIBRARY_DATA["authors"][1], "books": [
         b for b in LIBRARY_DATA["books"] if b["author_id"] == "au_2"]}),
     "grading_rubric": {"success_criteria": ["Lists Emma and Persuasion."],
                        "verified_tool_chain": [{"tool": "list_authors", "args": {}},
                                                {"tool": "get_author",
                                                 "args": {"author_id": "au_2"}}]}},
]

MAILDESK_QUESTIONS = [
    {"task": "Which city does Kenji Sato live in?", "reference_answer": "Tokyo",
     "grading_rubric": {"success_criteria": ["Says Tokyo."],
                        "verified_tool_chain": [{"tool": "contacts", "args": {}}]}},
]


def _write_env(mix: Path, number: str, data: dict, readme: str, checkpoint: dict,
               files: dict | None = None) -> None:
    folder = mix / number
    folder.mkdir(parents=True)
    for name, rows in data.items():
        (folder / f"{name}.json").write_text(json.dumps(rows, indent=2))
    for name, text in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (folder / "README.md").write_text(readme)
    checkpoint = {"index": int(number), "local_files_dir": f"./environment_mix/{number}",
                  **checkpoint}
    (mix / f"{number}_step4_checkpoint.json").write_text(json.dumps(checkpoint, indent=1))


def _write_questions(mix: Path, number: str, name: str, tasks: list) -> None:
    (mix / "questions").mkdir(exist_ok=True)
    (mix / "questions" / f"{number}.json").write_text(
        json.dumps({"env_id": number, "name": name, "tasks": tasks}, indent=1))


def _write_parquet(mix: Path, number: str, tasks: list) -> bool:
    """The combined question file, in the verl shape; False when pyarrow is missing."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    rows = [{"prompt": [{"role": "user", "content": t["task"]}], "ability": "tool-use",
             "data_source": f"agent_world/{number}",
             "reward_model": {"style": "rubric", "ground_truth": t["reference_answer"]},
             "extra_info": json.dumps({"env_id": number, "index": i,
                                       "grading_rubric": t["grading_rubric"]})}
            for i, t in enumerate(tasks)]
    pq.write_table(pa.Table.from_pylist(rows), mix / "questions.parquet")
    return True


def write_release(root: Path) -> Path:
    """Write the fixture release under ``root``; returns ``root``."""
    mix = root / "environment_mix"
    _write_env(mix, LIBRARY, LIBRARY_DATA, LIBRARY_README, {
        "data": {"ToolDesignAgent": {"tool_schemas": LIBRARY_TOOLS}},
        "metadata": LIBRARY_METADATA})
    _write_questions(mix, LIBRARY, LIBRARY_METADATA["name"], LIBRARY_QUESTIONS)
    _write_env(mix, WIDGETS, WIDGET_DATA, "# Widget Shop\n\nWidgets for sale.\n", {"data": {
        "meta": {"domain": "Software Development", "subcategory": "Testing",
                 "theme": "Misbehaving tools"},
        "ToolDesignAgent": {"tool_schemas": WIDGET_TOOLS}}})
    (mix / BROKEN).mkdir()
    (mix / BROKEN / "things.json").write_text("[]")
    (mix / f"{BROKEN}_step4_checkpoint.json").write_text("{not json")
    _write_env(mix, MAILDESK, MAILDESK_DATA, "# Mail Desk\n\nA shared inbox.\n", {
        "data": {"ToolDesignAgent": {"tool_schemas": MAILDESK_TOOLS}},
        "metadata": {"env_id": MAILDESK, "name": "Mail Desk", "description": "A shared inbox.",
                     "taxonomy": {"L1_name": "Communication & General Utilities",
                                  "L2_name": "Email", "L3_name": "Shared inboxes"}}},
        files=MAILDESK_FILES)
    _write_parquet(mix, MAILDESK, MAILDESK_QUESTIONS)
    return root

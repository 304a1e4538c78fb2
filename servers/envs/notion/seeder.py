"""Seeding machinery: stable ids, times, the people of Lumen Labs and a writer for pages.

Ids are keyed hashes of stable names (``sid("pg", "eng-wiki")``), so tests and example calls can
name seeded objects without reading the database. All times fall between the workspace's start
(March 2024) and the evening before the environment's epoch (2026-03-02).
"""

from __future__ import annotations

import hashlib
import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from agentworld.servers.envs._people import people

from .seed_blocks import Spec

__all__ = ["sid", "iso", "Seeder", "MEMBERS", "ENGINEERS", "PRODUCT", "START", "LAST",
           "seed_members", "seed_teamspaces"]

START = datetime(2024, 3, 4, 9, 0)
LAST = datetime(2026, 3, 1, 18, 0)
DOMAIN = "lumenlabs.io"

# key, role, job title, joined (days after START)
MEMBERS: list[tuple[str, str, str, int]] = [
    ("ceo", "owner", "CEO & Co-founder", 0),
    ("cto", "member", "CTO & Co-founder", 0),
    ("vp_product", "member", "VP of Product", 21),
    ("em_platform", "member", "Engineering Manager, Platform", 45),
    ("em_product", "member", "Engineering Manager, Product", 70),
    ("staff_eng", "member", "Staff Software Engineer", 28),
    ("be1", "member", "Senior Backend Engineer", 60),
    ("be2", "member", "Senior Backend Engineer", 150),
    ("be3", "member", "Backend Engineer", 400),
    ("fe1", "member", "Senior Frontend Engineer", 90),
    ("fe2", "member", "Frontend Engineer", 330),
    ("mobile", "member", "Mobile Engineer", 210),
    ("sre1", "member", "Site Reliability Engineer", 120),
    ("sre2", "member", "Site Reliability Engineer", 460),
    ("qa", "member", "QA Engineer", 240),
    ("pm_growth", "member", "Product Manager, Growth", 180),
    ("pm_billing", "member", "Product Manager, Billing", 300),
    ("design_lead", "member", "Senior Product Designer", 100),
    ("designer", "member", "Product Designer", 420),
    ("analyst", "member", "Data Analyst", 270),
    ("people_lead", "member", "Head of People", 80),
    ("recruiter", "member", "Technical Recruiter", 360),
    ("guest_design", "guest", "Brand Designer, Northwind Studio", 470),
    ("guest_recruit", "guest", "Recruiting Partner, Talentbridge", 500),
    ("guest_audit", "guest", "Security Auditor, Ardent Security", 560),
]
GUEST_DOMAINS = {"guest_design": "northwindstudio.com", "guest_recruit": "talentbridge.co",
                 "guest_audit": "ardentsecurity.com"}
ENGINEERS = ["cto", "em_platform", "em_product", "staff_eng", "be1", "be2", "be3", "fe1", "fe2",
             "mobile", "sre1", "sre2", "qa"]
PRODUCT = ["vp_product", "pm_growth", "pm_billing", "design_lead", "designer", "analyst"]
TEAMSPACES = [
    ("company", "Company", "🏢", "Handbook, OKRs and all-hands notes for everyone."),
    ("engineering", "Engineering", "🛠️", "The engineering wiki, runbooks, RFCs and bugs."),
    ("product", "Product", "🧭", "Roadmap, specs, research and meeting notes."),
    ("people", "People", "👥", "Hiring, reviews and people operations."),
]


def sid(prefix: str, key: str) -> str:
    """The seeded id for ``key``: the same on every build, shaped like runtime ids."""
    digest = hashlib.blake2b(f"lumenlabs:{prefix}:{key}".encode(), digest_size=5).hexdigest()
    return f"{prefix}_{digest}"


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class Seeder:
    """Writes the workspace; keeps join dates so every author existed when they wrote."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.rng = random.Random(20260302)
        self.joined: dict[str, datetime] = {}
        self.names: dict[str, str] = {}
        self.created: dict[str, datetime] = {}
        self.edited: dict[str, datetime] = {}
        self.teamspace: dict[str, str | None] = {}
        self.top_blocks: dict[str, list[str]] = {}

    # -- time ------------------------------------------------------------------------------------
    def later(self, after: datetime, max_days: float, min_hours: float = 0.5) -> datetime:
        """A working-hours moment after ``after``, never past LAST."""
        room = max(0.0, min(max_days * 24, (LAST - after).total_seconds() / 3600 - min_hours))
        moment = after + timedelta(hours=min_hours + self.rng.uniform(0, room))
        moment = moment.replace(hour=self.rng.randint(8, 18), minute=self.rng.randint(0, 59),
                                second=0)
        return min(max(moment, after), LAST)

    def who(self, pool: list[str], at: datetime) -> str:
        present = [k for k in pool if self.joined[k] <= at]
        return self.rng.choice(present) if present else "ceo"

    def user(self, key: str) -> str:
        return sid("usr", key)

    # -- rows ------------------------------------------------------------------------------------
    def insert(self, table: str, values: dict[str, Any]) -> None:
        cols, marks = ", ".join(values), ", ".join("?" for _ in values)
        self.conn.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", tuple(values.values()))

    def page(self, key: str, title: str, *, created: datetime, creator: str,
             parent: str | None = None, database: str | None = None, icon: str | None = None,
             teamspace: str | None = None, member_access: str | None = None,
             archived: bool = False, editors: list[str] | None = None,
             edit_days: float = 60) -> str:
        """Insert page ``key``; parent/database are page/database keys; returns the page id."""
        created = min(max(created, self.joined[creator]), LAST - timedelta(days=1))
        edited = self.later(created, edit_days)
        if parent is not None:
            teamspace = self.teamspace[parent]
        self.teamspace[key] = teamspace
        self.created[key], self.edited[key] = created, edited
        kind = "database" if database else "page" if parent else "workspace"
        self.insert("pages", {
            "id": sid("pg", key), "title": title, "icon": icon, "parent_type": kind,
            "parent_page_id": sid("pg", parent) if parent else None,
            "parent_database_id": sid("db", database) if database else None,
            "teamspace_id": sid("ts", teamspace) if teamspace else None,
            "member_access": member_access, "archived": int(archived),
            "created_by": self.user(creator), "created_at": iso(created),
            "last_edited_by": self.user(self.who(editors or [creator], edited)),
            "last_edited_at": iso(edited)})
        return sid("pg", key)

    def blocks(self, page_key: str, specs: list[Spec], author: str) -> list[str]:
        """Write ``specs`` (with their children) as the page's content; returns top-level ids."""
        ids = [self._block(page_key, None, i, spec, author, f"{page_key}/{i}")
               for i, spec in enumerate(specs)]
        self.top_blocks[page_key] = ids
        return ids

    def _block(self, page_key: str, parent: str | None, position: int, spec: Spec, author: str,
               path: str) -> str:
        block_id = sid("blk", path)
        created = self.created[page_key]
        edited = min(self.edited[page_key], self.later(created, 30, 0))
        self.insert("blocks", {
            "id": block_id, "page_id": sid("pg", page_key), "parent_block_id": parent,
            "position": position, "type": spec["type"], "text": spec["text"],
            "checked": None if spec["checked"] is None else int(spec["checked"]),
            "language": spec["language"], "created_by": self.user(author),
            "created_at": iso(created), "last_edited_by": self.user(author),
            "last_edited_at": iso(max(edited, created))})
        for i, child in enumerate(spec["children"]):
            self._block(page_key, block_id, i, child, author, f"{path}/{i}")
        return block_id

    def grant(self, page_key: str, member: str, level: str, by: str = "ceo") -> None:
        at = max(self.created[page_key], self.joined[member])
        self.insert("page_permissions", {
            "page_id": sid("pg", page_key), "member_id": self.user(member), "level": level,
            "granted_by": self.user(by), "granted_at": iso(self.later(at, 5))})

    def thread(self, key: str, page_key: str, comments: list[tuple[str, str]],
               block_id: str | None = None, resolver: str | None = None) -> None:
        """A discussion on a page (or one of its blocks) with its comments in order."""
        first = max([self.created[page_key], *(self.joined[a] for a, _ in comments)])
        start = self.later(first, 20)
        self.insert("discussions", {
            "id": sid("dsc", key), "page_id": sid("pg", page_key), "block_id": block_id,
            "resolved": 0, "resolved_by": None, "resolved_at": None, "created_at": iso(start)})
        moment = start
        for i, (author, body) in enumerate(comments):
            self.insert("comments", {"id": sid("cmt", f"{key}/{i}"),
                                     "discussion_id": sid("dsc", key),
                                     "author_id": self.user(author), "body": body,
                                     "created_at": iso(moment)})
            moment = self.later(moment, 2, 0.1)
        if resolver is not None:
            self.conn.execute("UPDATE discussions SET resolved = 1, resolved_by = ?, "
                              "resolved_at = ? WHERE id = ?",
                              (self.user(resolver), iso(moment), sid("dsc", key)))


def seed_members(seeder: Seeder) -> None:
    staff = people(len(MEMBERS), seed=1629, domain=DOMAIN)
    for (key, role, title, days), person in zip(MEMBERS, staff, strict=True):
        email = person.email
        if key in GUEST_DOMAINS:
            email = email.split("@")[0] + "@" + GUEST_DOMAINS[key]
        joined = START + timedelta(days=days, hours=seeder.rng.randint(0, 6))
        seeder.joined[key], seeder.names[key] = joined, person.name
        seeder.insert("members", {"id": sid("usr", key), "name": person.name, "email": email,
                                  "role": role, "job_title": title, "joined_at": iso(joined)})


def seed_teamspaces(seeder: Seeder) -> None:
    for key, name, icon, description in TEAMSPACES:
        seeder.insert("teamspaces", {"id": sid("ts", key), "name": name, "icon": icon,
                                     "description": description, "created_at": iso(START)})

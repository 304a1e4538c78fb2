"""Seed the GitHub template: the Harborline organization, its people and its repositories.

Deterministic: one seeded ``random.Random`` drives everything and no wall clock is read. This
module builds the static world (accounts, repositories, access, branches, labels, milestones);
``seed_activity`` then fills each repository with issues, pull requests, reviews and checks.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from agentworld.servers.envs._people import people

from . import seed_activity
from .seed_activity import RepoWorld, iso, parse, sha
from .seed_data import (
    BOT,
    DOMAIN,
    LABELS,
    MILESTONES,
    ORG,
    ORG_CREATED,
    ORG_NAME,
    REPOS,
    SEED_END,
    USER_REPO,
    RepoSpec,
)

__all__ = ["seed"]

# Activity before this date is not seeded: older history would only add rows, not behaviour.
ACTIVITY_START = datetime(2024, 1, 8, 9, 0, tzinfo=UTC)
# When the legacy dashboard stopped being developed and was archived.
LEGACY_WINDOW = (datetime(2022, 1, 10, 9, 0, tzinfo=UTC), datetime(2023, 5, 12, 17, 0, tzinfo=UTC))
WRITE_LEVELS = ("write", "maintain", "admin")


@dataclass
class Roster:
    owners: list[str]
    members: list[str]
    outside: list[str]

    @property
    def everyone(self) -> list[str]:
        return self.owners + self.members + self.outside


def seed(conn: sqlite3.Connection) -> None:
    """Fill an empty GitHub schema with the Harborline organization and its history."""
    rng = random.Random(20260302)
    roster = _accounts(conn, rng)
    deck = seed_activity.scenario_deck(rng)
    for repo_id, spec in enumerate(REPOS, start=1):
        world = _org_repo(conn, rng, repo_id, spec, roster, deck)
        seed_activity.populate(conn, rng, world)
    owner = roster.members[4]
    world = _user_repo(conn, rng, len(REPOS) + 1, owner, roster, deck)
    seed_activity.populate(conn, rng, world)


def _login(given: str, surname: str, taken: set[str]) -> str:
    base = f"{given}-{surname}".lower()
    login, n = base, 2
    while login in taken:
        login, n = f"{base}{n}", n + 1
    taken.add(login)
    return login


def _accounts(conn: sqlite3.Connection, rng: random.Random) -> Roster:
    conn.execute("INSERT INTO accounts VALUES (?, 'Organization', ?, ?, ?)",
                 (ORG, ORG_NAME, f"engineering@{DOMAIN}", ORG_CREATED))
    conn.execute("INSERT INTO accounts VALUES (?, 'Bot', 'Dependabot', NULL, ?)",
                 (BOT, "2019-04-16T12:00:00Z"))
    taken: set[str] = set()
    staff = [(_login(p.given, p.surname, taken), p) for p in people(24, seed=31, domain=DOMAIN)]
    guests = people(6, seed=57, domain="users.noreply.github.com")
    # Outside contributors pick handles with a number, and keep their address private.
    outside = [(_login(p.given, p.surname, taken) + str(rng.randint(70, 99)), p) for p in guests]
    rows = [(login, p.name, p.email) for login, p in staff]
    rows += [(login, p.name, f"{login}@users.noreply.github.com") for login, p in outside]
    for login, name, email in rows:
        joined = datetime(2012, 1, 1, tzinfo=UTC) + timedelta(days=rng.randint(0, 3400))
        conn.execute("INSERT INTO accounts VALUES (?, 'User', ?, ?, ?)",
                     (login, name, email, iso(joined)))
    logins = [login for login, _ in staff]
    roster = Roster(owners=logins[:3], members=logins[3:], outside=[lg for lg, _ in outside])
    conn.executemany("INSERT INTO org_members VALUES (?, ?, ?)",
                     [(ORG, lg, "owner") for lg in roster.owners]
                     + [(ORG, lg, "member") for lg in roster.members])
    return roster


def _team(rng: random.Random, roster: Roster, spec: RepoSpec) -> dict[str, str]:
    """Explicit collaborators of an org repository: a lead, maintainers, writers, triagers."""
    pool = rng.sample(roster.members, len(roster.members))
    team = {pool[0]: "admin", pool[1]: "maintain"}
    writers = rng.randint(4, 7)
    team.update({lg: "write" for lg in pool[2:2 + writers]})
    team.update({lg: "triage" for lg in pool[2 + writers:4 + writers]})
    if spec.visibility == "public":
        team[rng.choice(roster.outside)] = "triage"
    elif spec.name == "infra":
        team[roster.outside[0]] = "write"  # a contracted platform engineer
    elif spec.name == "payments-service":
        team[roster.outside[1]] = "read"  # an external auditor
    return team


def _insert_repo(conn: sqlite3.Connection, repo_id: int, owner: str, spec: RepoSpec,
                 pushed: datetime) -> None:
    methods = set(spec.methods)
    conn.execute(
        "INSERT INTO repos VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (repo_id, owner, spec.name, f"{owner}/{spec.name}", spec.description, spec.language,
         spec.visibility, spec.default_branch, int(spec.archived), int("merge" in methods),
         int("squash" in methods), int("rebase" in methods), spec.stars, spec.created,
         iso(pushed)))


def _org_repo(conn: sqlite3.Connection, rng: random.Random, repo_id: int, spec: RepoSpec,
              roster: Roster, deck: Iterator[str]) -> RepoWorld:
    start, end = LEGACY_WINDOW if spec.archived else (
        max(ACTIVITY_START, parse(spec.created)), parse(SEED_END))
    _insert_repo(conn, repo_id, ORG, spec, end)
    team = _team(rng, roster, spec)
    conn.executemany("INSERT INTO collaborators VALUES (?, ?, ?)",
                     [(repo_id, lg, perm) for lg, perm in team.items()])
    writers = roster.owners + [lg for lg, perm in team.items() if perm in WRITE_LEVELS]
    readers = roster.owners + roster.members + [lg for lg in team if lg in roster.outside]
    if spec.visibility == "public":
        readers = roster.everyone
    world = RepoWorld(repo_id, spec, start, end, writers, readers, deck)
    _repo_furniture(conn, rng, world)
    return world


def _user_repo(conn: sqlite3.Connection, rng: random.Random, repo_id: int, owner: str,
               roster: Roster, deck: Iterator[str]) -> RepoWorld:
    spec = USER_REPO
    start, end = parse(spec.created), parse(SEED_END)
    _insert_repo(conn, repo_id, owner, spec, end)
    friend = roster.members[9]
    conn.execute("INSERT INTO collaborators VALUES (?, ?, 'write')", (repo_id, friend))
    world = RepoWorld(repo_id, spec, start, end, [owner, friend], roster.everyone, deck)
    _repo_furniture(conn, rng, world)
    return world


def _repo_furniture(conn: sqlite3.Connection, rng: random.Random, world: RepoWorld) -> None:
    """Branches with their protection, the label set and the milestones of one repository."""
    spec = world.spec
    for branch in filter(None, (spec.default_branch, spec.release_branch)):
        protected = int(bool(spec.approvals or spec.checks))
        conn.execute("INSERT INTO branches VALUES (?, ?, ?, ?, ?, ?)",
                     (world.id, branch, sha(rng), protected, spec.approvals, iso(world.start)))
        conn.executemany("INSERT INTO required_checks VALUES (?, ?, ?)",
                         [(world.id, branch, ctx) for ctx in spec.checks])
    for name, (color, description) in LABELS.items():
        cur = conn.execute("INSERT INTO labels (repo_id, name, color, description) "
                           "VALUES (?, ?, ?, ?)", (world.id, name, color, description))
        world.labels[name] = cur.lastrowid
    for number, title in enumerate(spec.versions, start=1):
        description, state, due = MILESTONES[number - 1]
        created = world.start + timedelta(days=rng.randint(0, 20))
        closed_at = None
        if state == "closed":
            closed_at = iso(world.end) if spec.archived else f"{due}T17:00:00Z"
        if spec.archived:
            due = None
        cur = conn.execute(
            "INSERT INTO milestones (repo_id, number, title, description, state, due_on, "
            "created_at, closed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (world.id, number, title, description, state, due and f"{due}T07:00:00Z",
             iso(created), closed_at))
        world.milestones.append((cur.lastrowid, closed_at))

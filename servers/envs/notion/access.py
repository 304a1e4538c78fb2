"""Who may do what to a page: Notion's sharing model, resolved up the page tree.

A member's level on a page is the first of these that applies, walking from the page up to the
workspace root (a database row climbs through its database to the database's parent page):

* the workspace owner always has ``full_access``;
* an explicit grant to the member on that page;
* for workspace members (not guests), the page's ``member_access`` default, if set;
* at the root: ``can_edit`` for members, ``no_access`` for guests.

Pages an actor cannot see answer NOT_FOUND, as the real API does for pages not shared with it.
"""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError

__all__ = ["LEVELS", "Access", "rank"]

LEVELS = ("no_access", "can_view", "can_comment", "can_edit", "full_access")
_RANK = {level: i for i, level in enumerate(LEVELS)}
ROOT_LEVEL = {"owner": "full_access", "member": "can_edit", "guest": "no_access"}
_VERB = {"can_view": "view", "can_comment": "comment on", "can_edit": "edit",
         "full_access": "share"}


def rank(level: str) -> int:
    return _RANK[level]


class Access:
    """The page tree and the actor's grants, loaded once per call so checks cost no queries."""

    def __init__(self, ctx: ToolContext, actor_id: str) -> None:
        self.ctx = ctx
        self.actor = ctx.require("members", actor_id, kind="member")
        self.pages = {r["id"]: r for r in ctx.all(
            "SELECT id, title, parent_type, parent_page_id, parent_database_id, member_access, "
            "archived FROM pages")}
        self.databases = {r["id"]: r for r in ctx.all(
            "SELECT id, title, parent_page_id FROM databases")}
        self.grants = self.grants_of(actor_id)
        self._levels: dict[str, str] = {}

    def grants_of(self, member_id: str) -> dict[str, str]:
        return {r["page_id"]: r["level"] for r in self.ctx.all(
            "SELECT page_id, level FROM page_permissions WHERE member_id = ?", (member_id,))}

    # -- the tree ------------------------------------------------------------------------------
    def parent_page(self, page_id: str) -> str | None:
        """The page above ``page_id`` for sharing purposes (rows skip over their database)."""
        page = self.pages[page_id]
        if page["parent_type"] == "database":
            return self.databases[page["parent_database_id"]]["parent_page_id"]
        return page["parent_page_id"]

    def chain(self, page_id: str) -> list[str]:
        """``page_id`` and its ancestors, nearest first."""
        out = []
        current: str | None = page_id
        while current is not None:
            out.append(current)
            current = self.parent_page(current)
        return out

    def in_trash(self, page_id: str) -> bool:
        """Archived itself or sitting under an archived ancestor."""
        return any(self.pages[p]["archived"] for p in self.chain(page_id))

    # -- levels --------------------------------------------------------------------------------
    def resolve(self, page_id: str, role: str, grants: dict[str, str]) -> tuple[str, str, Any]:
        """(level, source, source page) for a member with ``role`` and explicit ``grants``."""
        if role == "owner":
            return "full_access", "owner", None
        for node in self.chain(page_id):
            if node in grants:
                return grants[node], "explicit" if node == page_id else "inherited", node
            default = self.pages[node]["member_access"]
            if role == "member" and default is not None:
                return default, "page_default", node
        return ROOT_LEVEL[role], "workspace", None

    def level(self, page_id: str) -> str:
        if page_id not in self._levels:
            self._levels[page_id] = self.resolve(page_id, self.actor["role"], self.grants)[0]
        return self._levels[page_id]

    def can(self, page_id: str, need: str) -> bool:
        return rank(self.level(page_id)) >= rank(need)

    # -- checks that raise ---------------------------------------------------------------------
    def page(self, page_id: str, need: str = "can_view") -> dict[str, Any]:
        """The page's tree row; NOT_FOUND if missing or invisible, FORBIDDEN below ``need``."""
        page = self.pages.get(page_id)
        if page is None or not self.can(page_id, "can_view"):
            raise ToolError(ErrorCode.NOT_FOUND,
                            f"page {page_id!r} does not exist or is not shared with you",
                            kind="page", id=page_id)
        if not self.can(page_id, need):
            raise ToolError(ErrorCode.FORBIDDEN,
                            f"you have {self.level(page_id)} on page {page_id!r}; "
                            f"{need} is needed to {_VERB[need]} it",
                            level=self.level(page_id), needed=need)
        return page

    def database(self, database_id: str, need: str = "can_view") -> dict[str, Any]:
        """The database's row; its access is that of the page it lives under."""
        database = self.databases.get(database_id)
        if database is None or not self.can(database["parent_page_id"], "can_view"):
            raise ToolError(ErrorCode.NOT_FOUND,
                            f"database {database_id!r} does not exist or is not shared with you",
                            kind="database", id=database_id)
        self.page(database["parent_page_id"], need)
        return database

    def live(self, page_id: str) -> None:
        """PRECONDITION_FAILED when the page (or an ancestor) is archived."""
        for node in self.chain(page_id):
            if self.pages[node]["archived"]:
                where = ("it is archived" if node == page_id
                         else f"its ancestor {node!r} is archived")
                raise ToolError(ErrorCode.PRECONDITION_FAILED,
                                f"page {page_id!r} cannot be changed because {where}; "
                                "restore it first", archived_page_id=node)

    def editable(self, page_id: str) -> dict[str, Any]:
        """A page the actor may edit right now: visible, can_edit, not in the trash."""
        page = self.page(page_id, "can_edit")
        self.live(page_id)
        return page

"""The Notion environment's manifest: what it is and the business rules its tools keep."""

from __future__ import annotations

from agentworld.servers import DataSource, Manifest, Rule, Taxonomy

__all__ = ["MANIFEST"]

_EDIT_TOOLS = ("update_page", "append_blocks", "update_block", "delete_block", "archive_page",
               "restore_page", "create_page", "move_page", "create_database_row",
               "update_database_row_properties")

RULES = (
    Rule("guest-no-top-level-pages",
         "Guests cannot create pages at the workspace root or move pages there.",
         ("create_page", "move_page"), "FORBIDDEN"),
    Rule("view-or-comment-cannot-edit",
         "Members with can_view or can_comment access cannot change a page: not its title or "
         "icon, blocks, rows, subpages, or place in the trash.", _EDIT_TOOLS, "FORBIDDEN"),
    Rule("comment-needs-can-comment",
         "Commenting on a page or resolving its threads needs at least can_comment access.",
         ("add_comment", "resolve_comment"), "FORBIDDEN"),
    Rule("unshared-pages-are-invisible",
         "A page, database or thread the actor has no access to answers as if it did not "
         "exist.",
         ("get_page", "get_block_children", "list_comments", "get_database", "query_database",
          "get_page_permissions"), "NOT_FOUND"),
    Rule("archived-pages-are-read-only",
         "A page that is archived, or sits under an archived page, cannot be edited, extended "
         "or commented on until it is restored.",
         ("update_page", "append_blocks", "update_block", "delete_block", "create_page",
          "move_page", "create_database_row", "update_database_row_properties", "add_comment",
          "resolve_comment"), "PRECONDITION_FAILED"),
    Rule("restore-needs-live-ancestors",
         "An archived page cannot be restored while one of its ancestors is still archived.",
         ("restore_page",), "PRECONDITION_FAILED"),
    Rule("archive-state-must-change",
         "Archiving a page already in the trash, or restoring one that is not archived, is a "
         "conflict.", ("archive_page", "restore_page"), "CONFLICT"),
    Rule("property-values-match-schema",
         "Row property values must name existing properties and match their types; select, "
         "status and multi_select values must be existing options and people must be "
         "workspace members.",
         ("create_database_row", "update_database_row_properties"), "VALIDATION_ERROR"),
    Rule("row-needs-title",
         "A database row must have a non-empty title property.",
         ("create_database_row", "update_database_row_properties"), "VALIDATION_ERROR"),
    Rule("children-only-under-container-blocks",
         "Only toggle, bulleted_list_item, numbered_list_item and to_do blocks can have child "
         "blocks (never dividers, headings, code, quotes or paragraphs).",
         ("append_blocks",), "VALIDATION_ERROR"),
    Rule("block-fields-match-type",
         "'checked' is only for to_do blocks, 'language' only for code blocks, and dividers "
         "carry no text.", ("append_blocks", "update_block"), "VALIDATION_ERROR"),
    Rule("max-100-blocks-per-append",
         "At most 100 blocks, nested children included, can be appended in one call.",
         ("append_blocks",), "VALIDATION_ERROR"),
    Rule("no-move-under-descendant",
         "A page cannot be moved under itself or one of its own descendants.",
         ("move_page",), "VALIDATION_ERROR"),
    Rule("rows-stay-in-database",
         "A database row cannot be moved out of its database.", ("move_page",),
         "VALIDATION_ERROR"),
    Rule("only-full-access-shares",
         "Only an actor with full_access on a page can change who it is shared with.",
         ("share_page",), "FORBIDDEN"),
    Rule("owner-keeps-full-access",
         "The workspace owner's access to a page cannot be lowered or removed.",
         ("share_page",), "FORBIDDEN"),
    Rule("resolved-threads-take-no-replies",
         "A resolved comment thread cannot get replies until it is reopened.",
         ("add_comment",), "PRECONDITION_FAILED"),
    Rule("resolve-state-must-change",
         "Resolving a resolved thread, or reopening an open one, is a conflict.",
         ("resolve_comment",), "CONFLICT"),
    Rule("filters-match-property-type",
         "A database filter's operator and value must suit the property's type (for example "
         "no greater_than on a select, option names must exist).",
         ("query_database",), "VALIDATION_ERROR"),
    Rule("guests-cannot-list-members",
         "Guests cannot list the workspace's members.", ("list_members",), "FORBIDDEN"),
)

MANIFEST = Manifest(
    id="notion",
    version="1.0.0",
    title="Notion workspace",
    description="The Notion workspace of Lumen Labs, a 25-person software company: a tree of "
                "pages with nested blocks (engineering wiki, runbooks, RFCs, meeting notes, "
                "OKRs, handbook), databases with typed property schemas (product roadmap, "
                "candidate pipeline, bug tracker), comment threads, and per-page sharing "
                "that inherits down the tree. Every tool acts as a member and enforces their "
                "access level.",
    taxonomy=Taxonomy("Document & Design", "Docs & Knowledge Bases",
                      "Notes and knowledge base"),
    rules=RULES,
    data_sources=(DataSource("generated", "CC0-1.0",
                             "Written for agentworld: a fictional company's workspace, with "
                             "people from the shared seeded name lists."),),
    tags=("notion", "wiki", "documents", "databases", "permissions", "comments"),
    bookkeeping=("*.last_edited_at",),
)

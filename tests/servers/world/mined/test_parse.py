from agentworld.servers.world.mined.parse import read_name


def test_reads_verbs_nouns_and_operations_of_real_name_shapes():
    cases = {
        "list_projects": ("list", "project"),
        "taiga_list_user_stories": ("list", "user_story"),
        "getIssueDetails": ("get", "issue"),
        "get_all_invoices": ("list", "invoice"),
        "create_invoice": ("create", "invoice"),
        "incident_create": ("create", "incident"),
        "update_ticket": ("update", "ticket"),
        "delete_label": ("delete", "label"),
        "approve_expense_report": ("transition", "expense_report"),
        "count_orders": ("count", "order"),
        "get_project_stats": ("aggregate", "project"),
        "star_repository": ("flag", "repository"),
        "unassign_issue": ("clear", "issue"),
        "get_user_by_email": ("get", "user"),
        "list_statuses": ("list", "status"),
        # Shapes the published servers use that once read as another record or operation.
        "add_notes_to_clip": ("create", "note"),
        "load_instrument_or_effect": ("get", "instrument"),
        "get_steps_and_calories": ("list", "step"),
        "policy_file_delete": ("delete", "policy_file"),
        "accounting_book_list": ("list", "accounting_book"),
        "lms_issue_credential": ("create", "credential"),
        "list_custom_metrics": ("list", "custom_metric"),
        "search_dashboards": ("list", "dashboard"),
        "get_metrics": ("aggregate", ""),
        "add_to_watchlist": ("create", "watchlist_entry"),
        "remove_from_favorites": ("delete", "favorite_entry"),
        "create_list": ("create", "list"),
        "get_list_of_tags": ("list", "tag"),
        "youtube_reply_to_comment": ("create", "reply"),
        "comment_on_issue": ("create", "comment"),
        "file_list": ("list", "file"),
        "superset_tag_list": ("list", "tag"),
        "issue_create": ("create", "issue"),
        "get_lists": ("list", "list"),
    }
    for name, (op, noun) in cases.items():
        intent = read_name(name, frozenset({"taiga", "youtube", "superset"}))
        assert (intent.op, intent.noun) == (op, noun), name


def test_names_without_honest_semantics_are_refused_with_a_reason():
    for name in ("run_python_code", "take_screenshot", "execute_query", "frobnicate_widgets",
                 "summarize_document"):
        intent = read_name(name)
        assert intent.op == "" and intent.reason, name


def test_a_verb_that_is_also_a_noun_ends_a_name_as_its_noun():
    # download_file once created a "download", hide_post a "hide", analyze_audio_file an
    # "analyze audio": the last word is the thing, and no verb the compiler knows is left.
    for name in ("download_file", "hide_post", "analyze_audio_file", "clear_log",
                 "download_file_from_url"):
        intent = read_name(name)
        assert intent.op == "" and "no verb" in intent.reason, name


def test_two_actions_and_the_servers_own_tools_are_refused_with_their_reason():
    assert read_name("search_and_replace").reason == "names two actions (search and replace)"
    assert "two actions" in read_name("working_hours_add_or_update").reason
    for name in ("list_tools", "list_tools_by_safety_class", "entity_list_tool"):
        assert read_name(name).reason == "names the server's own tools, not a record", name

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
    }
    for name, (op, noun) in cases.items():
        intent = read_name(name, frozenset({"taiga"}))
        assert (intent.op, intent.noun) == (op, noun), name


def test_names_without_honest_semantics_are_refused_with_a_reason():
    for name in ("run_python_code", "take_screenshot", "execute_query", "frobnicate_widgets",
                 "summarize_document"):
        intent = read_name(name)
        assert intent.op == "" and intent.reason, name

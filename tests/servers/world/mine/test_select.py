"""Fit for stateful simulation: verbs over business objects, no opaque tools."""

from __future__ import annotations

from agentworld.servers.world.mine.select import assess


def test_a_crud_and_lifecycle_surface_is_selected():
    fit = assess(["taiga_list_projects", "taiga_get_project", "create_user_story",
                  "update_user_story", "close_issue", "issues.list"])
    assert fit.selected and fit.verb_ratio == 1.0
    assert fit.reads == 3 and fit.writes == 3
    assert {"project", "story", "user"} <= set(fit.entities)


def test_read_only_surfaces_are_not_selected():
    fit = assess(["get_weather", "get_forecast", "get_alerts", "search_city", "get_air_quality"])
    assert fit.writes == 0 and not fit.selected


def test_code_runners_and_screens_are_not_selected():
    fit = assess(["execute_python", "screenshot", "click", "navigate", "get_page", "create_tab"])
    assert fit.opaque >= 4 and not fit.selected


def test_few_tools_or_few_verbs_are_not_selected():
    assert not assess(["list_notes", "create_note"]).selected
    names = ["hello", "ping", "echo", "magic", "zap", "list_notes", "create_note", "get_note"]
    assert assess(names).verb_ratio < 0.6 and not assess(names).selected

"""One way to split identifiers and take singulars, shared by the miner, the mined model, the
task generator and imported servers: a noun reads the same in a tool name, an entity and a
task."""

import pytest

from agentworld.servers.words import plural, singular, words


def test_words_split_camel_snake_kebab_and_prose_alike():
    assert words("listOpenIssues") == words("list-open_issues") == ["list", "open", "issues"]
    assert words("List open issues") == ["list", "open", "issues"]
    assert words("getHTTPStatus") == ["get", "http", "status"]
    assert words("") == words(None) == []


@pytest.mark.parametrize("plural, one", [
    ("issues", "issue"), ("repositories", "repository"), ("boxes", "box"),
    ("addresses", "address"), ("branches", "branch"), ("caches", "cache"),
    ("movies", "movie"), ("databases", "database"), ("responses", "response"),
    ("causes", "cause"), ("statuses", "status"), ("aliases", "alias"), ("buses", "bus"),
    ("analyses", "analysis"), ("indices", "index"), ("people", "person"),
    ("quizzes", "quiz"), ("indexes", "index")])
def test_a_plural_becomes_its_singular(plural, one):
    assert singular(plural) == one


@pytest.mark.parametrize("word", ["status", "address", "alias", "analysis", "news", "series",
                                  "species", "data", "tos", "ids", "https", "macos",
                                  "campus", "famous", "issue"])
def test_a_word_that_is_no_plural_is_left_alone(word):
    assert singular(word) == word


@pytest.mark.parametrize("one, many", [
    ("issue", "issues"), ("repository", "repositories"), ("day", "days"), ("box", "boxes"),
    ("branch", "branches"), ("status", "statuses"), ("alias", "aliases"), ("quiz", "quizzes"),
    ("analysis", "analyses"), ("person", "people"), ("data", "data"), ("news", "news"),
    ("tax_rate", "tax_rates"), ("order_status", "order_statuses"), ("dns", "dns")])
def test_plural_is_the_inverse_of_singular(one, many):
    assert plural(one) == many
    assert "_".join(map(singular, many.split("_"))) == one

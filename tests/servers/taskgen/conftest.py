import pytest

from agentworld.servers import Environment
from agentworld.servers.world.archetypes.lodging import STAY_RESERVATIONS
from agentworld.servers.world.compile import compile_card
from agentworld.servers.world.spec import ThemeCard


@pytest.fixture(scope="session")
def hotel():
    """A synthesized lodging environment and its compiled declaration."""
    card = ThemeCard(id="test-hotel", title="Test Hotels", description="A hotel desk.",
                     l1="Travel & Transportation", l2="Lodging", l3="Hotel reservations",
                     archetype="stay_reservations", features=(), region="PT", seed=1)
    compiled = compile_card(card, STAY_RESERVATIONS)
    return Environment(compiled.definition), compiled

import pytest

from agentworld.servers import Environment
from tests.fixtures.tiny_env import DEFINITION as TINY


@pytest.fixture(scope="session")
def tiny_env() -> Environment:
    return Environment(TINY)

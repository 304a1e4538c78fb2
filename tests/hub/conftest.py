import pytest
from fastapi.testclient import TestClient

from agentworld.hub.app import create_app
from agentworld.hub.settings import HubSettings
from agentworld.servers import Catalog
from tests.fixtures.tiny_env import DEFINITION


@pytest.fixture
def tiny_catalog() -> Catalog:
    catalog = Catalog(modules={})
    catalog.add(DEFINITION)
    return catalog


@pytest.fixture
def make_client(tiny_catalog):
    clients = []

    def make(**settings) -> TestClient:
        client = TestClient(create_app(tiny_catalog, settings=HubSettings(**settings)))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client) -> TestClient:
    return make_client()

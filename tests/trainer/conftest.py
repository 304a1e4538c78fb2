"""Fixtures of the trainer tests: the tiny environment on a real hub on 127.0.0.1:0, its tasks,
and a tiny randomly initialised model whose tokenizer is trained here (nothing downloads)."""

from __future__ import annotations

import json

import pytest

from agentworld.servers import Catalog
from tests.fixtures.live_server import live_server
from tests.fixtures.tiny_env import DEFINITION as TINY


@pytest.fixture(scope="session")
def tiny_catalog() -> Catalog:
    catalog = Catalog(modules={})
    catalog.add(TINY)
    return catalog


@pytest.fixture(scope="session")
def hub_url(tiny_catalog):
    from agentworld.hub.app import create_app

    with live_server(create_app(tiny_catalog)) as url:
        yield url


@pytest.fixture(scope="session")
def tiny_tasks(tiny_catalog):
    from agentworld.trainer.tasks import collect_tasks

    return collect_tasks(tiny_catalog, ["tiny"])


@pytest.fixture(scope="session")
def transcripts(tiny_catalog, tiny_tasks):
    from agentworld.trainer.sft import reference_transcripts

    return reference_transcripts(tiny_catalog, tiny_tasks)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory, transcripts):
    """A 2-layer Llama (about 0.4M parameters) with a BPE trained on the transcripts."""
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from agentworld.trainer.models import make_tiny_model
    from agentworld.trainer.prompting import CHAT_TEMPLATE

    corpus = [CHAT_TEMPLATE] + [json.dumps(t.messages) + json.dumps(t.schemas)
                                for t in transcripts] * 4
    return make_tiny_model(tmp_path_factory.mktemp("tiny-model"), corpus, vocab_size=2048,
                           hidden_size=128)


@pytest.fixture(scope="session")
def tiny_sft_dir(tmp_path_factory, tiny_model_dir, transcripts):
    """The tiny model after enough SFT to replay the reference solutions (a few seconds)."""
    from agentworld.trainer.models import load_policy
    from agentworld.trainer.sft import SFTConfig, train_sft

    model, tokenizer = load_policy(tiny_model_dir)
    out = tmp_path_factory.mktemp("tiny-sft")
    result = train_sft(model, tokenizer, list(transcripts) * 4,
                       SFTConfig(epochs=20, learning_rate=5e-3, batch_size=2, warmup_ratio=0.05),
                       out_dir=out)
    assert result.losses[-1] < result.losses[0] / 10
    return out

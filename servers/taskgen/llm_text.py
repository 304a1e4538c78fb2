"""Task wording by an LLM, as an option: an OpenAI-compatible endpoint rewrites the template
text of a task so it reads like a person's request.

The rewrite is checked before it is used: every value the template states (quoted strings,
ids, numbers, dates) must still be there, and nothing the agent must discover (the reference
answer) may appear. A rewrite that fails the check, or an endpoint that fails, leaves the
template text in place: the offline templates are always the fallback.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from agentworld.servers.chat_client import chat_completion

from .record import TaskRecord

__all__ = ["LLMRewriter", "stated_values"]

log = logging.getLogger(__name__)

_SYSTEM = ("Rewrite the task below as a short, natural request from a user of the service. "
           "Keep every quoted value, id, number and date exactly as written. Do not add facts, "
           "values or hints. Answer with the rewritten task only.")
_VALUE = re.compile(r'"[^"]+"|\b[a-z]{3}_[0-9a-f]{6,10}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d+\b')


def stated_values(text: str) -> set[str]:
    """What a rewrite must keep: quoted values, ids, dates and numbers of the template text."""
    return {v.strip('"') for v in _VALUE.findall(text)}


class LLMRewriter:
    """Callable on a TaskRecord: returns the record with a reworded prompt, or unchanged."""

    def __init__(self, *, endpoint: str, model: str, api_key: str | None = None,
                 timeout: float = 60.0,
                 chat: Callable[[list[dict[str, str]]], str] | None = None) -> None:
        self.endpoint, self.model, self.api_key, self.timeout = endpoint, model, api_key, timeout
        self._chat = chat or self._post
        self.rewritten = self.kept_template = 0

    def _post(self, messages: list[dict[str, str]]) -> str:
        return chat_completion(self.endpoint, self.model, messages, api_key=self.api_key,
                               temperature=0.3, timeout=self.timeout).strip()

    def __call__(self, record: TaskRecord) -> TaskRecord:
        try:
            text = self._chat([{"role": "system", "content": _SYSTEM},
                               {"role": "user", "content": record.prompt}])
        except (OSError, ValueError, KeyError) as exc:
            log.warning("task rewrite failed, keeping the template text: %s", exc)
            self.kept_template += 1
            return record
        keeps = all(v in text for v in stated_values(record.prompt))
        leaks = record.reference_answer is not None and record.reference_answer not in \
            record.prompt and re.search(rf"\b{re.escape(record.reference_answer)}\b", text)
        if not text or not keeps or leaks:
            self.kept_template += 1
            return record
        self.rewritten += 1
        record.metadata = {**record.metadata, "template_prompt": record.prompt,
                           "worded_by": self.model}
        record.prompt = text
        return record

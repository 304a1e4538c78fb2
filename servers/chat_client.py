"""One chat-completions call to an OpenAI-compatible endpoint, for the optional LLM helpers
(task wording, card synthesis, the release judge, the arena's analyzer)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

__all__ = ["chat_completion"]


def chat_completion(endpoint: str, model: str, messages: list[dict[str, str]], *,
                    api_key: str | None = None, temperature: float = 0.0,
                    timeout: float = 60.0) -> str:
    """The reply text of ``model`` behind ``endpoint`` (the API base, e.g.
    ``http://127.0.0.1:8000/v1``).

    Raises:
        OSError: the endpoint could not be reached or answered an HTTP error.
        ValueError, KeyError, IndexError, TypeError: the reply is not a chat completion.
    """
    body = json.dumps({"model": model, "messages": messages,
                       "temperature": temperature}).encode()
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(endpoint.rstrip("/") + "/chat/completions", data=body,
                                     headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        reply: Any = json.loads(response.read())
    return reply["choices"][0]["message"]["content"]

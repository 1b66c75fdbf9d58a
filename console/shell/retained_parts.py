"""A game's retained parts besides its state (the sports stage's results sheet, published as
``<base>/sheet/<part>``): each part is published when its payload differs from the last one.

Contract: `RetainedParts(publish, prefix)`; `publish(parts)` hands `publish(topic, payload)`
each part of `parts` (suffix -> JSON object) that is new or changed, on ``<prefix>/<suffix>``.
Only what changed is sent: one verdict republishes its question and the overviews, not the
whole sheet, and a broker keeps every part retained for a page that opens later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["RetainedParts"]


class RetainedParts:
    def __init__(self, publish: Callable[[str, dict[str, Any]], None], prefix: str) -> None:
        self._publish = publish
        self._prefix = prefix
        self._last: dict[str, object] = {}

    def publish(self, parts: Mapping[str, object]) -> None:
        for suffix, payload in parts.items():
            if self._last.get(suffix) != payload and isinstance(payload, dict):
                self._last[suffix] = payload
                self._publish(f"{self._prefix}/{suffix}", payload)

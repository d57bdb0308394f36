"""Progress bars for long work: tqdm at a terminal, silence (and a DEBUG log line) elsewhere."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

__all__ = ["progress"]

T = TypeVar("T")

_log = logging.getLogger("hmodel.progress")


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def progress(
    items: Iterable[T],
    *,
    label: str,
    total: int | None = None,
    stream: TextIO | None = None,
    enabled: bool | None = None,
) -> Iterator[T]:
    """Yield ``items``, drawing a progress bar on ``stream`` when it is a terminal.

    The bar is tqdm's (the optional extra ``hmodel[progress]``); without tqdm, or when
    ``stream`` is not a terminal (a pipe, a CI log), nothing is drawn and one DEBUG line
    on the ``hmodel.progress`` logger says when the work is done. The bar is removed
    when the work ends, so the output that follows reads as without it.

    Args:
        items: The work, one item per step.
        label: What is being done, shown before the bar.
        total: How many items, when ``items`` has no ``len``.
        stream: Where to draw (default: standard error).
        enabled: Force the bar on or off; ``None`` draws it only at a terminal.
    """
    out = sys.stderr if stream is None else stream
    draw = _is_terminal(out) if enabled is None else enabled
    if draw:
        try:
            from tqdm import tqdm
        except ImportError:
            draw = False
        else:
            yield from tqdm(items, desc=label, total=total, file=out, leave=False)
            return
    count = 0
    for item in items:
        count += 1
        yield item
    _log.debug("%s: %d done", label, count)

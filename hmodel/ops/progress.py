"""Progress bars for long work: tqdm at a terminal, silence (and a DEBUG log line) elsewhere."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO, TypeVar

__all__ = ["JobProgress", "progress"]

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


class JobProgress:
    """A ``progress=`` hook for long batch jobs (index backfill, verify, rebuild; I2, I3).

    The jobs call it after every batch with the shard and its report so far (anything
    with ``rows`` read and a ``done`` flag); it draws one bar of the rows read over every
    shard, tqdm's at a terminal, and elsewhere logs one DEBUG line per finished shard on
    the ``hmodel.progress`` logger. Use it as a context manager so the bar is removed.

    Args:
        label: What is being done, shown before the bar.
        stream: Where to draw (default: standard error).
        enabled: Force the bar on or off; ``None`` draws it only at a terminal.

    Example:
        >>> from hmodel.ops.progress import JobProgress
        >>> with JobProgress("verify", enabled=False) as hook:
        ...     pass  # run_index_job(backend, index, "verify", progress=hook)
        >>> hook.rows
        0
    """

    def __init__(
        self, label: str, *, stream: TextIO | None = None, enabled: bool | None = None
    ) -> None:
        self.label = label
        self.rows = 0
        self._seen: dict[object, int] = {}
        out = sys.stderr if stream is None else stream
        draw = _is_terminal(out) if enabled is None else enabled
        self._bar: Any = None
        if draw:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self._bar = tqdm(desc=label, unit=" rows", file=out, leave=False)

    def __call__(self, shard: object, report: Any) -> None:
        """Account for one batch of ``shard``: ``report.rows`` read so far in it."""
        key = getattr(shard, "start", None), getattr(shard, "side", None), id(shard)
        read = int(getattr(report, "rows", 0))
        step = read - self._seen.get(key, 0)
        self._seen[key] = read
        self.rows += step
        if self._bar is not None:
            self._bar.update(step)
        if getattr(report, "done", False):
            _log.debug("%s: a shard is done (%d rows so far)", self.label, self.rows)

    def close(self) -> None:
        """Remove the bar (and log the total)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        _log.debug("%s: %d rows done", self.label, self.rows)

    def __enter__(self) -> JobProgress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

from __future__ import annotations

import io
import logging

import pytest

from hmodel.ops.progress import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_drawn_when_not_a_terminal(caplog: pytest.LogCaptureFixture) -> None:
    stream = io.StringIO()
    with caplog.at_level(logging.DEBUG, logger="hmodel.progress"):
        assert list(progress(range(3), label="loading", stream=stream)) == [0, 1, 2]
    assert stream.getvalue() == ""
    assert caplog.messages == ["loading: 3 done"]


def test_a_bar_is_drawn_at_a_terminal() -> None:
    pytest.importorskip("tqdm")
    stream = _Terminal()
    assert list(progress(range(5), label="loading", stream=stream)) == list(range(5))
    assert "loading" in stream.getvalue()
    assert "0/5" in stream.getvalue()  # drawn at the start, then cleared (leave=False)


def test_the_bar_can_be_forced_off_at_a_terminal() -> None:
    stream = _Terminal()
    assert list(progress([1, 2], label="x", stream=stream, enabled=False)) == [1, 2]
    assert stream.getvalue() == ""

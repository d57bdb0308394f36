"""The examples in the pattern modules' docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["hmodel.patterns.ids", "hmodel.patterns.timebucket"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "hmodel.ops.command",
    "hmodel.ops.config",
    "hmodel.ops.sizing",
    "hmodel.ops.spread",
    "hmodel.ops.tracing",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0

"""The import contracts that keep the fake Thrift1 and Thrift2 apart list all their modules."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import hmodel.testing.fake

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_FAKE = Path(hmodel.testing.fake.__file__).parent
_PYPROJECT = Path(__file__).parents[3] / "pyproject.toml"


def _contract(name: str) -> dict[str, Any]:
    contracts = tomllib.loads(_PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["name"] == name)


def _modules(prefix: str) -> list[str]:
    return sorted(f"hmodel.testing.fake.{p.stem}" for p in _FAKE.glob(f"{prefix}_*.py"))


def test_the_thrift1_to_thrift2_contract_lists_every_module_of_both_sides() -> None:
    contract = _contract("The fake Thrift1 server never imports the Thrift2 one")
    assert sorted(contract["source_modules"]) == _modules("thrift1")
    assert sorted(contract["forbidden_modules"]) == _modules("thrift2")


def test_the_thrift2_to_thrift1_contract_lists_every_module_of_both_sides() -> None:
    contract = _contract("The fake Thrift2 server never imports the Thrift1 one")
    assert sorted(contract["source_modules"]) == _modules("thrift2")
    assert sorted(contract["forbidden_modules"]) == _modules("thrift1")

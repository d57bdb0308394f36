"""``hmodel.testing`` itself: the fake servers exported lazily, the old re-export modules gone."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import hmodel.testing
from hmodel.testing import fake

OLD_MODULES = (
    "thrift_error",
    "thrift_handler",
    "thrift_idl",
    "thrift_processor",
    "thrift_scanner",
    "thrift_server",
)


def test_the_fake_servers_are_the_packages_exports() -> None:
    """``from hmodel.testing import FakeHBaseServer`` is the server of ``hmodel.testing.fake``."""
    from hmodel.testing import FakeHBaseServer, FakeThrift2Server

    assert FakeHBaseServer is fake.FakeHBaseServer
    assert FakeThrift2Server is fake.FakeThrift2Server
    assert set(hmodel.testing.__all__) <= set(dir(hmodel.testing))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = hmodel.testing.Nothing  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", OLD_MODULES)
def test_the_moved_modules_are_gone(name: str) -> None:
    """The re-export modules of the servers' old home are removed (see the changelog)."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"hmodel.testing.{name}")


def test_importing_the_package_leaves_the_servers_unimported() -> None:
    """pytest loads the plugin in every session: thriftpy2 and the IDL wait for first use."""
    code = (
        "import sys, hmodel.testing, hmodel.testing.plugin; "
        "print(sorted(m for m in sys.modules "
        "if m.startswith(('hmodel.testing.fake', 'thriftpy2'))))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert found.strip() == "[]"

"""Test support: the pytest plugin, the contract suite and the HBase-compatible Thrift servers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hmodel.testing.fake import FakeHBaseServer, FakeThrift2Server

# The fake servers (hmodel.testing.fake) are the package's public entry points, imported on
# first use rather than with the package: pytest loads this package's plugin in every
# session, and the servers bring thriftpy2 and the parsed HBase IDL (about 0.4 s) with them.
__all__ = ["FakeHBaseServer", "FakeThrift2Server"]


def __getattr__(name: str) -> Any:
    """``FakeHBaseServer`` and ``FakeThrift2Server``, from :mod:`hmodel.testing.fake`."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from hmodel.testing.fake import FakeHBaseServer, FakeThrift2Server

    found: dict[str, Any] = {
        "FakeHBaseServer": FakeHBaseServer,
        "FakeThrift2Server": FakeThrift2Server,
    }
    globals().update(found)
    return found[name]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

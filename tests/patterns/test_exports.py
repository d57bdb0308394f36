"""``hmodel.patterns`` exports every pattern of its modules, as ``hmodel.keys`` does its keys."""

from __future__ import annotations

import importlib
import pkgutil

import hmodel.patterns

#: Names a module exports that the package leaves to it: the bytes of an index row's layout,
#: the plumbing of the pattern cores' operations.
MODULE_ONLY = {
    "hmodel.patterns.index": {"ROW_FIELD", "STATUS_QUALIFIER", "UNVERIFIED", "VERIFIED"},
    "hmodel.patterns.storelike": {"END", "StoreLike", "UnitLike", "collect", "pull"},
}


def test_every_pattern_is_imported_from_the_package() -> None:
    """Each name of each pattern module's ``__all__`` is the same object in ``hmodel.patterns``."""
    missing = []
    for info in pkgutil.iter_modules(hmodel.patterns.__path__, "hmodel.patterns."):
        module = importlib.import_module(info.name)
        for name in set(module.__all__) - MODULE_ONLY.get(info.name, set()):
            if getattr(hmodel.patterns, name, None) is not getattr(module, name):
                missing.append(f"{info.name}.{name}")
            elif name not in hmodel.patterns.__all__:
                missing.append(f"{info.name}.{name} (imported, not in __all__)")
    assert missing == []


def test_the_package_exports_nothing_else() -> None:
    """``hmodel.patterns.__all__`` names exactly what its modules export (no stale name)."""
    exported = set()
    for info in pkgutil.iter_modules(hmodel.patterns.__path__, "hmodel.patterns."):
        module = importlib.import_module(info.name)
        exported |= set(module.__all__) - MODULE_ONLY.get(info.name, set())
    assert sorted(hmodel.patterns.__all__) == sorted(exported)

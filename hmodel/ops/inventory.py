"""The declarations a tool looks at: the tables and models found in the user's modules."""

from __future__ import annotations

import importlib
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType

import attrs

from hmodel.errors import DeclarationError, InputError
from hmodel.model import ModelInfo, model_info, model_infos_for
from hmodel.schema import Table

__all__ = ["Inventory", "import_module", "models_of", "tables_of"]


_PACKAGE = str(Path(__file__).resolve().parents[1])


def _user_frame(exc: BaseException) -> str:
    """``file:line: `` of the innermost frame outside hmodel and the import machinery."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if not frame.filename.startswith(("<", _PACKAGE))
        and "importlib" not in Path(frame.filename).parts
    ]
    return f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""


def import_module(name: str) -> ModuleType:
    """Import the module ``name`` (dotted).

    Raises:
        InputError: It cannot be imported: not found, a syntax error, or an exception
            raised while it runs (a declaration refused, say). The message gives
            ``file:line`` where known; the cause is kept.
    """
    try:
        return importlib.import_module(name)
    except SyntaxError as exc:
        where = f"{exc.filename}:{exc.lineno}: " if exc.filename else ""
        raise InputError(f"cannot import module {name!r}: {where}syntax error: {exc.msg}") from exc
    except ImportError as exc:
        raise InputError(f"cannot import module {name!r}: {exc}") from exc
    except Exception as exc:  # the module raised while running: report it, not a traceback
        raise InputError(
            f"cannot import module {name!r}: {_user_frame(exc)}{type(exc).__name__}: {exc}"
        ) from exc


def _as_model(value: object) -> ModelInfo | None:
    if not isinstance(value, type):
        return None
    try:
        return model_info(value)
    except DeclarationError:
        return None


def tables_of(module: ModuleType) -> list[Table]:
    """Return the tables declared at the top level of ``module``, in the module's order."""
    return [value for value in vars(module).values() if isinstance(value, Table)]


def models_of(module: ModuleType) -> list[ModelInfo]:
    """Return the models declared at the top level of ``module``, in the module's order."""
    found = (_as_model(value) for value in vars(module).values())
    return [info for info in found if info is not None]


def _unique_tables(tables: Iterable[Table]) -> tuple[Table, ...]:
    seen: dict[str, Table] = {}
    for table in tables:
        seen.setdefault(table.full_name, table)
    return tuple(seen.values())


def _unique_models(models: Iterable[ModelInfo]) -> tuple[ModelInfo, ...]:
    seen: dict[type, ModelInfo] = {}
    for info in models:
        seen.setdefault(info.cls, info)
    return tuple(seen.values())


@attrs.frozen
class Inventory:
    """The tables and models a check or a spread covers.

    Attributes:
        tables: Every table, once, by full name: those of the modules and those the
            models live in.
        models: Every model, once: those of the modules and those declared on their
            tables in any module already imported (record types, R1).
    """

    tables: tuple[Table, ...]
    models: tuple[ModelInfo, ...]

    @classmethod
    def from_modules(cls, names: Sequence[str]) -> Inventory:
        """Import each module and collect its tables and models.

        Raises:
            InputError: No module named, a module cannot be imported, or the modules
                declare neither tables nor models.
        """
        if not names:
            raise InputError("name at least one module, e.g. examples.ecommerce.schema")
        modules = [import_module(name) for name in names]
        tables = [t for m in modules for t in tables_of(m)]
        models = [i for m in modules for i in models_of(m)]
        tables += [info.table for info in models]
        models += [
            info
            for table in tables
            for info in model_infos_for(table)
            if info.table is table  # the same declaration, not an equal one elsewhere
        ]
        inventory = cls(_unique_tables(tables), _unique_models(models))
        if not inventory.tables:
            raise InputError(f"{', '.join(names)} declares no hmodel Table or model", value=names)
        return inventory

    def models_on(self, table: Table) -> tuple[ModelInfo, ...]:
        """Return the models whose rows live in ``table``."""
        return tuple(m for m in self.models if m.table.full_name == table.full_name)

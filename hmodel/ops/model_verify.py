"""Checking a generated model module against the sampled rows: decode, re-encode, compare."""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from typing import Any

import attrs

from hmodel.backend.base import Put, RowResult
from hmodel.errors import HModelError, InputError
from hmodel.mapping import Mapper, mapper_for

__all__ = ["Mismatch", "Verification", "load_module", "verify_rows"]

#: The write stamp of the re-encoding (any positive one: only the bytes are compared).
STAMP = 1


@attrs.frozen
class Mismatch:
    """One sampled row the model does not reproduce.

    Attributes:
        row: The rowkey.
        reason: The decoding error, or which columns (or the key) came back different.
    """

    row: bytes
    reason: str


@attrs.frozen
class Verification:
    """The outcome of decoding and re-encoding every sampled row.

    Attributes:
        rows: How many rows were checked.
        mismatches: The rows that did not decode or came back different.
    """

    rows: int
    mismatches: tuple[Mismatch, ...]

    @property
    def ok(self) -> bool:
        """Whether every row round-tripped byte for byte."""
        return not self.mismatches


def load_module(source: str, name: str = "hmodel_inspected") -> types.ModuleType:
    """Import ``source`` as a fresh module named ``name`` (in ``sys.modules`` meanwhile).

    Raises:
        InputError: The source does not compile or its import raises.
    """
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    except Exception as exc:  # any failure of generated code is one clear error
        raise InputError(f"the generated module does not import: {exc!r}") from exc
    finally:
        if previous is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous
    return module


def _check(mapper: Mapper[Any], row: RowResult) -> str | None:
    try:
        instance = mapper.from_row(row)
        mutations = mapper.to_mutations(instance, timestamp=STAMP)
    except HModelError as exc:
        return f"{type(exc).__name__}: {exc.message}"
    puts = [m for m in mutations if isinstance(m, Put)]
    rows = {m.row for m in puts}
    if rows and rows != {row.row}:
        return f"the key re-encodes as {sorted(rows)[0]!r}"
    written = {m.column: m.value for m in puts}
    read = {column: cell.value for column, cell in row.cells.items()}
    differing = sorted(c for c in written.keys() | read.keys() if written.get(c) != read.get(c))
    if differing:
        shown = ", ".join(c.decode(errors="backslashreplace") for c in differing[:5])
        return f"columns {shown} do not re-encode to the stored bytes"
    return None


def verify_rows(model: type, rows: Sequence[RowResult]) -> Verification:
    """Decode each row with ``model``, encode it again, and compare rowkey and cells.

    A row passes when its rowkey and every cell (column and value) come back exactly,
    with no cell more and none less.
    """
    mapper: Mapper[Any] = mapper_for(model)
    mismatches = [
        Mismatch(row.row, reason) for row in rows if (reason := _check(mapper, row)) is not None
    ]
    return Verification(len(rows), tuple(mismatches))

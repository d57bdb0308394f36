"""Fixtures of the operator tools' tests: user modules written on the fly."""

from __future__ import annotations

import itertools
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

_counter = itertools.count()


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], str]:
    """Write a module with the given source to a temporary path; return its import name."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(source: str) -> str:
        name = f"hmodel_user_module_{next(_counter)}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        monkeypatch.delitem(sys.modules, name, raising=False)
        return name

    return write


BAD_SCHEMA = """
from datetime import datetime, timedelta
from hmodel import Key, Str, Int, Timestamp, Salt, Hashed, model, field
from hmodel.schema import Family, Table, UniformSplits, SaltSplits, HexSplits

EVENTS = Table("events", [Family("data"), Family("x", min_versions=1, versions=50)])
SALTED = Table("salted", [Family("d")], splits=UniformSplits(8))
HASHED = Table("hashed", [Family("d")], splits=HexSplits(4))
UNSPLIT = Table("unsplit", [Family("d")])
WIDE = Table("wide", [Family("a"), Family("b"), Family("c"), Family("e")], allow_many_families=True)


@model(EVENTS, key=Key(Timestamp("at"), Str("host")))
class Event:
    at: datetime
    host: str
    description: str = field("data:description")
    price: int = field("x:p", history=True)


@model(SALTED, key=Key(Salt("user", buckets=4), Str("user")))
class Salted:
    user: str
    name: str = field("d:n")


@model(HASHED, key=Key(Hashed("user", nbytes=4), Str("user")))
class HashedUser:
    user: str
    name: str = field("d:n")


@model(UNSPLIT, key=Key(Salt("user", buckets=6), Str("user", width=120)))
class Unsplit:
    user: str
    name: str = field("d:n")
"""

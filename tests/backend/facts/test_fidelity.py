"""HBASE_FACTS found by issue 26's differential runs: the fake servers and a real one, raw."""

from __future__ import annotations

from typing import Any

import pytest

from hmodel.backend.thrift2.idl import (
    HBASE2,
    TColumn,
    TColumnValue,
    TDelete,
    TGet,
    TMutation,
    TPut,
    TRowMutations,
    TTableName,
)
from hmodel.schema import Family
from tests.backend.facts.conftest import Wire1, Wire2

_Op = HBASE2.TCompareOperator

#: Every compare operator a client may send with a value.
_OPERATORS = (
    _Op.LESS,
    _Op.LESS_OR_EQUAL,
    _Op.EQUAL,
    _Op.NOT_EQUAL,
    _Op.GREATER_OR_EQUAL,
    _Op.GREATER,
    _Op.NO_OP,
)


def _put(row: bytes, *cells: tuple[bytes, bytes, bytes]) -> Any:
    return TPut(
        row=row, columnValues=[TColumnValue(family=f, qualifier=q, value=v) for f, q, v in cells]
    )


def _cells(result: Any) -> list[tuple[bytes, bytes]]:
    return [(v.family + b":" + v.qualifier, v.value) for v in result.columnValues or []]


@pytest.fixture
def t(thrift2: Wire2) -> bytes:
    """The test's table: ``f`` (VERSIONS 3) and ``g`` (1), split at ``m``."""
    return thrift2.standard()


def test_an_empty_expected_value_is_null_for_every_operator(thrift2: Wire2, t: bytes) -> None:
    """A zero-length expected value means null (HBASE-26742): it matches a missing or
    empty cell for every operator but NOT_EQUAL, which matches a non-empty one (S1)."""
    client = thrift2.client
    client.put(t, _put(b"r", (b"f", b"full", b"v"), (b"f", b"empty", b"")))

    def attempt(column: bytes, op: int) -> bool:
        rows = TRowMutations(row=b"r", mutations=[TMutation(put=_put(b"r", (b"g", b"x", b"1")))])
        return bool(client.checkAndMutate(t, b"r", b"f", column, op, b"", rows))

    answers = {(column, op): attempt(column, op) for column in (b"full", b"empty", b"missing")
               for op in _OPERATORS}  # fmt: skip
    for op in _OPERATORS:
        assert answers[b"full", op] is (op == _Op.NOT_EQUAL)
        assert answers[b"empty", op] is (op != _Op.NOT_EQUAL)
        assert answers[b"missing", op] is (op != _Op.NOT_EQUAL)


def test_check_and_put_and_delete_take_an_empty_value_as_null(thrift2: Wire2, t: bytes) -> None:
    """``checkAndPut``/``checkAndDelete`` with ``b""`` pass on a missing column (S1)."""
    client = thrift2.client
    assert client.checkAndPut(t, b"r", b"f", b"a", b"", _put(b"r", (b"f", b"a", b"v")))
    assert not client.checkAndPut(t, b"r", b"f", b"a", b"", _put(b"r", (b"f", b"a", b"w")))
    delete = TDelete(row=b"r", columns=[TColumn(family=b"f", qualifier=b"a")])
    assert client.checkAndDelete(t, b"r", b"f", b"missing", b"", delete)
    assert _cells(client.get(t, TGet(row=b"r"))) == []


def test_no_op_with_a_value_fails_on_a_missing_cell(thrift2: Wire2, t: bytes) -> None:
    """``NO_OP`` with a value is served: false on a missing cell. (On an existing one
    HBase 2.6.1 retries until the client times out: not sent, see docs/engine.md.)"""
    rows = TRowMutations(row=b"r", mutations=[TMutation(put=_put(b"r", (b"g", b"x", b"1")))])
    assert not thrift2.client.checkAndMutate(t, b"r", b"f", b"a", _Op.NO_OP, b"v", rows)
    assert _cells(thrift2.client.get(t, TGet(row=b"r"))) == []


def test_the_table_descriptor_carries_attributes_and_the_namespace(thrift2: Wire2) -> None:
    """``getTableDescriptor`` names the namespace, gives each family its options again as
    ``attributes`` text with ``dfsReplication`` 0, and the table's own attributes."""
    name = thrift2.create(
        Family("f", versions=3, ttl=1000, min_versions=1),
        Family("g", bloom_filter="ROWCOL", block_cache=False, keep_deleted_cells=True),
    )
    descriptor = thrift2.client.getTableDescriptor(TTableName(qualifier=name))
    assert descriptor.tableName.ns == b"default"
    f, g = descriptor.columns
    assert f.attributes == {
        b"INDEX_BLOCK_ENCODING": b"NONE",
        b"VERSIONS": b"3",
        b"KEEP_DELETED_CELLS": b"FALSE",
        b"BLOOMFILTER": b"ROW",
        b"BLOCKSIZE": b"65536",
        b"BLOCKCACHE": b"true",
        b"DATA_BLOCK_ENCODING": b"NONE",
        b"MIN_VERSIONS": b"1",
        b"TTL": b"1000",
        b"REPLICATION_SCOPE": b"0",
        b"IN_MEMORY": b"false",
        b"COMPRESSION": b"NONE",
    }
    assert g.attributes is not None
    assert (g.attributes[b"BLOOMFILTER"], g.attributes[b"BLOCKCACHE"]) == (b"ROWCOL", b"false")
    assert g.attributes[b"KEEP_DELETED_CELLS"] == b"TRUE"
    assert f.dfsReplication == g.dfsReplication == 0
    assert descriptor.attributes == {
        b"IS_META": b"false",
        b"DURABILITY": b"USE_DEFAULT",
        b"hbase.store.file-tracker.impl": b"DEFAULT",
    }

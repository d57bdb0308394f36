"""A scan's bad prefix is said with the model, the table and the key fields, as get says it."""

from __future__ import annotations

import pytest

from hmodel import Family, Key, Str, Table, field, model
from hmodel.backend.memory import MemoryBackend
from hmodel.errors import KeyEncodeError
from hmodel.repository import Repository


@model(Table("tenant_doc", [Family("f")]), key=Key(Str("tenant"), Str("doc")))
class Doc:
    tenant: str
    doc: str
    body: str = field("f:b")


@pytest.fixture
def docs() -> Repository[Doc]:
    repo = Repository(Doc, MemoryBackend())
    repo.create_table()
    return repo


@pytest.mark.parametrize("call", ["scan", "page", "plan"])
def test_a_misspelt_prefix_field_names_the_model_and_the_key_fields(
    docs: Repository[Doc], call: str
) -> None:
    calls = {
        "scan": lambda: list(docs.scan({"tenat": "t1"})),
        "page": lambda: docs.page(10, {"tenat": "t1"}),
        "plan": lambda: docs.plan({"tenat": "t1"}),
    }
    with pytest.raises(KeyEncodeError) as info:
        calls[call]()
    message = str(info.value)
    assert "model 'Doc'" in message and "'tenat'" in message
    assert "(the key fields: tenant, doc)" in message and "table='tenant_doc'" in message

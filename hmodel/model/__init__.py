"""Model declarations: rowkey composition, qualifier aliases and family placement (F2, F6-F10)."""

from hmodel.model.column import ColumnName
from hmodel.model.declaration import model, model_info, model_infos_for
from hmodel.model.info import (
    ColumnField,
    CounterField,
    KeyField,
    MapField,
    ModelInfo,
    StoredField,
    VersionField,
)
from hmodel.model.specifier import counter, extra_field, field, map_field, version_field

__all__ = [
    "ColumnField",
    "ColumnName",
    "CounterField",
    "KeyField",
    "MapField",
    "ModelInfo",
    "StoredField",
    "VersionField",
    "counter",
    "extra_field",
    "field",
    "map_field",
    "model",
    "model_info",
    "model_infos_for",
    "version_field",
]

"""HBase's Thrift1 IDL, loaded with thriftpy2 from the copy that ships inside happybase."""

from __future__ import annotations

import os
from types import ModuleType

import happybase
import thriftpy2

__all__ = ["HBASE_THRIFT", "LATEST_TIMESTAMP", "method_name"]

#: The ``Hbase_thrift`` module (structs, exceptions and ``Hbase`` service) that happybase
#: itself uses, so replies are built from exactly the classes its client decodes.
HBASE_THRIFT: ModuleType = thriftpy2.load(
    os.path.join(os.path.dirname(happybase.__file__), "Hbase.thrift"),
    module_name="Hbase_thrift",
)

#: HBase's ``HConstants.LATEST_TIMESTAMP`` (``Long.MAX_VALUE``): "no timestamp given".
LATEST_TIMESTAMP = 2**63 - 1


def method_name(api: str) -> str:
    """Return the Python handler method name of a Thrift1 call: ``getRowsTs`` -> ``get_rows_ts``.

    >>> method_name("scannerOpenWithScan")
    'scanner_open_with_scan'
    """
    return "".join(f"_{ch.lower()}" if ch.isupper() else ch for ch in api)

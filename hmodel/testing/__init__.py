"""Test support: the pytest plugin, the contract suite and the HBase-compatible Thrift server."""

"""Tests of the HBase filter language of the memory engine (I4)."""

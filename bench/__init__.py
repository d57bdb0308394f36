"""Benchmarks of hmodel: run ``python bench/run.py [--quick] [--json out.json] [--check]``."""

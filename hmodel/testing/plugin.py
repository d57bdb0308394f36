"""The hmodel pytest plugin: backend fixtures for application tests."""

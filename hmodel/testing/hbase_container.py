"""A real HBase Thrift1 server for tests: ``HMODEL_TEST_HBASE``, a testcontainer, or a skip."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from hmodel.errors import IllegalArgumentError
from hmodel.testing.hbase_process import wait_for_thrift

__all__ = [
    "ADDRESS_VARIABLE",
    "DEFAULT_IMAGE",
    "IMAGE_VARIABLE",
    "SKIP_REASON",
    "THRIFT_PORT",
    "docker_available",
    "parse_address",
    "real_hbase",
    "wait_for_thrift",
]

#: ``host:port`` of a running HBase Thrift1 server to test against.
ADDRESS_VARIABLE = "HMODEL_TEST_HBASE"
#: Docker image of a standalone HBase whose Thrift1 server listens on :data:`THRIFT_PORT`.
IMAGE_VARIABLE = "HMODEL_TEST_HBASE_IMAGE"
#: The image used when :data:`IMAGE_VARIABLE` is unset (HBase standalone + Thrift1).
DEFAULT_IMAGE = "dajobe/hbase:latest"
#: The Thrift1 port inside the container.
THRIFT_PORT = 9090
#: Why real-HBase tests are skipped when nothing is available.
SKIP_REASON = "no Docker engine and HMODEL_TEST_HBASE unset: real-HBase tests skipped"


def parse_address(text: str) -> tuple[str, int]:
    """Parse ``"host:port"`` (``"[::1]:9090"`` for IPv6) into ``(host, port)``.

    Raises:
        IllegalArgumentError: Not ``host:port`` with a port in 1..65535.
    """
    host, colon, port = text.strip().rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65_536:
        raise IllegalArgumentError(
            f"{ADDRESS_VARIABLE} must be host:port, e.g. localhost:9090", value=text
        )
    return host, int(port)


def docker_available() -> bool:
    """Whether a Docker engine answers a ping (via the docker SDK testcontainers uses)."""
    try:
        import docker  # type: ignore[import-untyped,unused-ignore]

        client = docker.from_env()
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # the SDK missing, no socket, no permission: all mean "no Docker"
        return False


@contextlib.contextmanager
def real_hbase() -> Iterator[tuple[str, int]]:
    """Yield ``(host, port)`` of a real HBase Thrift1 server, or skip the test.

    In order: ``HMODEL_TEST_HBASE=host:port`` if set (used as it is, not waited for);
    else, when a Docker engine answers, a standalone HBase container started with
    testcontainers from ``HMODEL_TEST_HBASE_IMAGE`` (default :data:`DEFAULT_IMAGE`), waited
    for until its Thrift server answers, and stopped afterwards; else
    ``pytest.skip`` with :data:`SKIP_REASON`.
    """
    address = os.environ.get(ADDRESS_VARIABLE)
    if address:
        yield parse_address(address)
        return
    if not docker_available():
        pytest.skip(SKIP_REASON)
    from testcontainers.core.container import DockerContainer

    image = os.environ.get(IMAGE_VARIABLE) or DEFAULT_IMAGE
    with DockerContainer(image).with_exposed_ports(THRIFT_PORT) as container:
        host = container.get_container_host_ip()
        port = int(container.get_exposed_port(THRIFT_PORT))
        wait_for_thrift(host, port)
        yield host, port

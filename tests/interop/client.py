"""The Java side of the interop tests: HBase's own client, compiled once, one JVM per module."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hmodel.errors import ServerStartError
from hmodel.testing.hbase_process import cache_dir, classpath, find_java

__all__ = ["JavaClient", "compiled_classes", "part", "rowspec"]

SOURCE = Path(__file__).parent / "java" / "Interop.java"

#: What separates the parts of a rowspec (the unit separator, never in a test value).
PART_SEPARATOR = "\x1f"


def rowspec(*parts: str) -> str:
    """A rowspec of ``TYPE:ARGS`` parts, as ``Interop.java`` reads it."""
    return PART_SEPARATOR.join(parts)


def part(kind: str, *args: object) -> str:
    """One rowspec part: ``part("pad", 10, 42)`` is ``pad:10:42``."""
    return ":".join([kind, *map(str, args)])


def _javac() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "javac").is_file():
        return str(Path(home) / "bin" / "javac")
    return shutil.which("javac")


def compiled_classes() -> tuple[str, list[Path]]:
    """Compile ``Interop.java`` against the kit's HBase jars; return ``(class dir, jars)``.

    The classes are cached under the kit's cache directory by the hash of the source and
    the jar names, so a second session compiles nothing. Skips the test, with the reason,
    where there is no ``javac`` or the jars cannot be resolved.
    """
    javac = _javac()
    if javac is None or find_java() is None:
        pytest.skip("no javac/java (install a JDK 17): interop tests with HBase's client skipped")
    try:
        jars = classpath()
    except ServerStartError as exc:
        pytest.skip(f"HBase's jars cannot be resolved: {exc.message}")
    digest = hashlib.sha256(SOURCE.read_bytes())
    for jar in jars:
        digest.update(jar.name.encode())
    target = cache_dir().parent / "interop" / digest.hexdigest()[:16]
    if not (target / "Interop.class").is_file():
        target.mkdir(parents=True, exist_ok=True)
        cp = os.pathsep.join(str(jar) for jar in jars)
        result = subprocess.run(
            [javac, "-nowarn", "-d", str(target), "-cp", cp, str(SOURCE)],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise AssertionError(f"javac failed:\n{result.stdout}{result.stderr}")
    return str(target), jars


class JavaClient:
    """One JVM running ``Interop`` against a cluster's ZooKeeper, asked line by line."""

    def __init__(self, zookeeper: tuple[str, int]) -> None:
        classes, jars = compiled_classes()
        java = find_java()
        assert java is not None
        cp = os.pathsep.join([classes, *map(str, jars)])
        self.process = subprocess.Popen(
            [java, "-Xmx256m", "-cp", cp, "Interop", zookeeper[0], str(zookeeper[1])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )

    def ask(self, *fields: str) -> dict[str, Any]:
        """Send one request (its TAB-separated fields); return the JSON answer.

        Raises:
            AssertionError: The JVM ended, or answered with an error.
        """
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("\t".join(fields) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith("@@ "):
                answer: dict[str, Any] = json.loads(line[3:])
                if answer["op"] == "error":
                    raise AssertionError(f"Interop.java: {answer['error']} for {fields!r}")
                return answer
        raise AssertionError(f"the JVM ended (exit {self.process.wait()}) before answering")

    def put(self, table: str, row: str, cells: dict[str, str]) -> dict[str, Any]:
        """Write one row (``cells``: column -> valuespec); return what Java wrote, as hex."""
        return self.ask("PUT", table, row, *(x for pair in cells.items() for x in pair))

    def get(self, table: str, row: str, kinds: dict[str, str]) -> dict[str, Any]:
        """Read one row; ``kinds``: column -> the ``Bytes.toX`` that decodes it."""
        return self.ask("GET", table, row, *(x for pair in kinds.items() for x in pair))

    def row(self, spec: str) -> bytes:
        """The bytes Java builds for a rowspec, without the server."""
        return bytes.fromhex(self.ask("ROW", spec)["row"])

    def close(self) -> None:
        """End the JVM (closing its stdin ends its loop)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()

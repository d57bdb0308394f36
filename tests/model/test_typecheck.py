"""Model declarations type-check for users under ``mypy --strict`` (dataclass_transform)."""

from __future__ import annotations

from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

SAMPLE = Path(__file__).with_name("typecheck_sample.py")


def mypy(source: Path) -> tuple[str, int]:
    stdout, stderr, status = mypy_api.run(
        [
            "--strict",
            "--no-incremental",
            "--cache-dir=/dev/null",
            "--python-version=3.10",
            str(source),
        ]
    )
    return stdout + stderr, status


def test_the_sample_model_module_is_clean_under_mypy_strict() -> None:
    output, status = mypy(SAMPLE)

    assert status == 0, output


def test_mypy_reports_a_typo_in_an_attribute_a_missing_argument_and_a_wrong_type(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        SAMPLE.read_text()
        + "\n\ndef typo(user: User) -> str:\n    return user.nickame\n"
        + "\n\ndef missing() -> User:\n    return User(user_id='u1')\n"
        + "\n\ndef wrong() -> User:\n    return User(user_id='u1', nickname=7)\n"
    )

    output, status = mypy(broken)

    assert status == 1
    assert '"User" has no attribute "nickame"' in output
    assert 'Missing named argument "nickname" for "User"' in output
    assert 'Argument "nickname" to "User" has incompatible type "int"; expected "str"' in output

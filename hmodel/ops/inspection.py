"""``hmodel inspect`` end to end: sample a table, guess its model, render it, verify it."""

from __future__ import annotations

import attrs

from hmodel.backend.base import Backend
from hmodel.ops.model_inference import ModelGuess, infer_model
from hmodel.ops.model_render import render_module
from hmodel.ops.model_verify import Verification, load_module, verify_rows
from hmodel.ops.table_sample import sample_table

__all__ = ["Inspection", "inspect_table"]


@attrs.frozen
class Inspection:
    """What ``hmodel inspect`` found.

    Attributes:
        guess: The inferred key, fields and families.
        source: The generated module.
        verification: The sampled rows decoded and re-encoded with that module's model.
    """

    guess: ModelGuess
    source: str
    verification: Verification


def inspect_table(
    backend: Backend, table: str, *, limit: int = 1000, prefix: bytes | None = None
) -> Inspection:
    """Sample ``table``, write a model module for it, and check that module on the sample.

    The check imports the generated source as a fresh module, decodes every sampled row
    with its model and encodes it again: a row passes when its rowkey and every cell
    come back byte for byte (:func:`~hmodel.ops.model_verify.verify_rows`).

    Raises:
        SampleError: The table has no rows (under ``prefix``), or no key layout fits.
        InputError: The generated module does not import (a defect worth reporting).
        BackendError: The table does not exist or the backend fails.
    """
    sample = sample_table(backend, table, limit=limit, prefix=prefix)
    guess = infer_model(sample)
    source = render_module(guess)
    model = getattr(load_module(source), guess.class_name)
    return Inspection(guess, source, verify_rows(model, sample.rows))

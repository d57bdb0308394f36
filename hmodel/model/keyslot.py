"""Key fields that refuse to change (K10), without a ``__setattr__`` on the model class.

A model's key fields live in its rowkey: changing one would make the instance name
another row, so an assignment after construction is refused (K10). attrs implements such
a rule as an ``on_setattr`` hook, which gives the class a ``__setattr__`` of its own, and
a class with its own ``__setattr__`` loses CPython's fast store to a slot for **every**
field: each assignment, and each field a read sets, then runs that Python function (a
value-field assignment cost 0.70 us instead of 0.08 us; the generated reader had to call
each slot's descriptor instead, about a sixth of its time per row).

So the rule lives on the key fields alone: each one's slot is reached through a
:class:`KeySlot`, a ``property`` whose getter is the slot's own (C) getter and whose
setter fills the slot once, when it is empty (the class's ``__init__``, unpickling,
``copy``), and refuses a second assignment with the same
:class:`~hmodel.errors.ValidationError` the hook raised. The value fields keep their
plain slots, and the class keeps ``object.__setattr__``.
"""

from __future__ import annotations

import types
from typing import Any

from hmodel.errors import ValidationError

__all__ = ["KeySlot", "guard_key_fields"]


class KeySlot(property):
    """The descriptor of a key field: reads the slot, sets it only while it is empty.

    Attributes:
        member: The slot's own descriptor (``types.MemberDescriptorType``), which sets it
            without the check: for code that builds an instance slot by slot (the
            generated reader).
    """

    member: Any

    def __init__(self, member: Any, model_name: str, name: str) -> None:
        get, put = member.__get__, member.__set__

        def set_once(instance: Any, value: Any) -> None:
            try:
                get(instance)
            except AttributeError:  # empty: the instance is being built
                put(instance, value)
                return
            raise ValidationError(
                f"model {model_name!r}: key field {name!r} cannot change (K10, keys are "
                "immutable); save a copy under the new key and delete the old row",
                field=name,
                value=value,
            )

        super().__init__(get, set_once, None, f"Key field {name!r} (K10: set once).")
        self.member = member


def guard_key_fields(cls: type, model_name: str, names: tuple[str, ...]) -> None:
    """Put a :class:`KeySlot` in front of each of ``names``' slots on the slotted ``cls``.

    Raises:
        TypeError: ``cls`` has no slot of one of the names (not an attrs slotted class).
    """
    for name in names:
        member = vars(cls).get(name)
        if not isinstance(member, types.MemberDescriptorType):
            raise TypeError(f"{cls.__name__}.{name} is not a slot")
        setattr(cls, name, KeySlot(member, model_name, name))

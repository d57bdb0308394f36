"""Open text layouts in a key: raw values ended by a separator or by the key's end (K1)."""

from __future__ import annotations

from typing import Any

import attrs

from hmodel.errors import DeclarationError
from hmodel.keys.component import Component, ValueComponent
from hmodel.keys.derived import Const
from hmodel.keys.modifier import Descending, Nullable, Reversed
from hmodel.keys.string import Bytes, Str

__all__ = ["delimit", "opened"]


def opened(component: ValueComponent[Any], until: bytes | None) -> ValueComponent[Any] | None:
    """``component`` with its variable-width text or bytes in the open layout.

    The open layout is the raw value, ended by ``until`` (which the key writes next) or,
    for ``until=None``, by the end of the key. Wrappers (``Descending``, ``Nullable``,
    ``Reversed``) are kept around the rewritten value.

    Returns:
        The rewritten component, or ``None`` when ``component`` is not a variable-width
        ``Str``/``Bytes`` (under any wrappers).

    Raises:
        DeclarationError: A wrapper refuses the open layout (``Descending`` of a value
            that runs to the end of the key).
    """
    if isinstance(component, Descending | Nullable | Reversed):
        inner = opened(component.component, until)
        return None if inner is None else attrs.evolve(component, component=inner)
    if isinstance(component, Str | Bytes) and component.width is None:
        return attrs.evolve(component, terminated=False, until=until)
    return None


def delimit(components: tuple[Component, ...], sep: object) -> tuple[Component, ...]:
    """The components of a delimited key: each value, then ``sep``, and the last value.

    A variable-width ``Str``/``Bytes`` is written raw up to the separator (a value
    holding ``sep`` is refused), the last one raw to the end of the key; a fixed-width
    component keeps its bytes and is followed by the separator too (it is read by its
    width, so it may hold ``sep``). Each separator is a ``Const``.

    Raises:
        DeclarationError: ``sep`` is not non-empty bytes, or a variable-width component
            other than text or bytes.
    """
    if not isinstance(sep, bytes) or not sep:
        raise DeclarationError("a Key sep must be non-empty bytes", value=sep)
    out: list[Component] = []
    for index, declared in enumerate(components):
        last = index == len(components) - 1
        component: Component = declared
        if isinstance(declared, ValueComponent) and declared.fixed_width is None:
            rewritten = opened(declared, None if last else sep)
            if rewritten is None:
                raise DeclarationError(
                    f"{declared.name!r}: a delimited key holds variable-width values only "
                    "as text or bytes (Str, Bytes)",
                    field=declared.name,
                    value=declared,
                )
            component = rewritten
        out.append(component)
        if not last:
            out.append(Const(sep, name=f"{sep!r} after {declared.name}"))
    return tuple(out)

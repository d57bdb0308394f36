"""The per-model steps the mapper's hot paths run, laid out once from the declaration.

Issue 11: reading a row into an instance and an instance into puts ran the declaration's
generic machinery (``isinstance`` chains, property look-ups, attrs ``__setattr__`` hooks)
for every field of every row. Per model, this module lays out what each field needs as
plain tuples (:func:`read_plan`, :func:`write_plan`) and from them generates
straight-line Python once: a reader (:func:`row_reader`: the rowkey decoded inline, each
cell decoded and set into the instance's slot) and a writer (:func:`row_writer`: one
``Put`` per field). Anything unusual (a value of another type than the annotation's
exact class, a missing required cell, a map field, an oversized cell, a codec error)
makes them raise, and the mapper's full path, which words every error, runs instead.
"""

from __future__ import annotations

import operator
import struct
import types
import typing
from collections.abc import Callable
from typing import Any

import attrs

from hmodel.backend.base import ListCells, WireCells
from hmodel.codecs import Long, Utf8
from hmodel.keys.compiled import CompiledKey, attribute_of, decode_lines, plain_name
from hmodel.model import ColumnField, CounterField, MapField, ModelInfo, StoredField, VersionField
from hmodel.model.annotation import check_value
from hmodel.model.info import LONG
from hmodel.model.keyslot import KeySlot

__all__ = [
    "ANY_TYPE",
    "FULL",
    "ReadStep",
    "WriteStep",
    "attribute_tuple",
    "cell_writer",
    "instance_builder",
    "read_plan",
    "row_reader",
    "row_writer",
    "write_plan",
]

#: Per stored field: name, column (``None`` for a map), the decode of its cell (``None``:
#: the mapper's full path decodes it: maps), the value of a missing cell (:data:`FULL`:
#: the full path decides: a required field, a default factory), the field.
ReadStep = tuple[str, bytes | None, Callable[[bytes], Any] | None, Any, StoredField]

#: "Take the mapper's full path" (a :data:`ReadStep`'s missing-cell value).
FULL: Any = object()

#: Per written field: name, column, the codec's encode, the exact class a value must have
#: for the short path (``None``: always the full path; :class:`ANY_TYPE`: the codec
#: judges), the largest size not needing the F11 check, the field.
WriteStep = tuple[str, bytes, Callable[[Any], bytes], type | None, int, ColumnField]


class ANY_TYPE:  # noqa: N801  # a marker class, named like the constant it is
    """A write step's "exact class" when the codec alone judges the value's type."""


_UNIONS = (typing.Union, types.UnionType)

#: Larger than any cell value.
_NO_BOUND = 1 << 62


def read_plan(info: ModelInfo) -> tuple[ReadStep, ...]:
    """The read steps of every stored field, in declaration order.

    Counters and the version decode as ``Long`` and read as 0 when absent; a column field
    without its cell reads as its plain default (or ``None`` when nullable), and takes the
    full path when it is required or has a default factory.
    """
    plan: list[ReadStep] = []
    for stored in info.fields.values():
        if isinstance(stored, MapField):
            plan.append((stored.name, None, None, FULL, stored))
        elif isinstance(stored, CounterField | VersionField):
            plan.append((stored.name, stored.column, LONG.decode, 0, stored))
        else:
            absent = FULL
            if stored.factory is None and stored.has_default:
                absent = stored.make_default()
            plan.append((stored.name, stored.column, stored.codec.decode, absent, stored))
    return tuple(plan)


def write_plan(info: ModelInfo) -> tuple[tuple[WriteStep | MapField, ...], Callable[[Any], Any]]:
    """The write steps of a full save, and a getter of the written fields' values.

    Returns:
        Per written field (counters and the version are not written by a save) a
        :data:`WriteStep`, or the bare field for a map (the full path writes maps); and an
        ``attrgetter`` returning those fields' values as a tuple, in the same order.
    """
    steps: list[WriteStep | MapField] = []
    for stored in info.fields.values():
        if isinstance(stored, CounterField | VersionField):
            continue
        if isinstance(stored, MapField):
            steps.append(stored)
            continue
        max_bytes, warn_bytes = info.cell_limits(stored)
        bounds = [b for b in (max_bytes, warn_bytes) if b is not None]
        hint = stored.value_type
        exact = _exact(hint)
        steps.append(
            (
                stored.name,
                stored.column,
                stored.codec.encode,
                exact,
                min(bounds, default=_NO_BOUND),
                stored,
            )
        )
    return tuple(steps), attribute_tuple(tuple(_name(step) for step in steps))


def _exact(hint: Any) -> type | None:
    """What a value of a field annotated ``hint`` must be to skip the full type check.

    Its exact class for a plain class; :data:`ANY_TYPE` when the codec alone judges
    (``Any``, generics such as ``list[int]``, ``Literal``: ``check_value`` accepts every
    value for those); ``None`` when only the full check decides (unions).
    """
    origin = typing.get_origin(hint)
    if hint is Any or hint is object or (origin is not None and origin not in _UNIONS):
        return ANY_TYPE
    if origin is None and isinstance(hint, type):
        return hint
    return None


def _name(step: WriteStep | MapField) -> str:
    return step[0] if isinstance(step, tuple) else step.name


def attribute_tuple(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A getter of these attributes as a tuple, for any number of names (0 included).

    ``operator.attrgetter`` returns a bare value for one name and refuses none.
    """
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda obj: (one(obj),)
    return operator.attrgetter(*names)


def instance_builder(info: ModelInfo) -> Callable[[dict[str, Any]], Any] | None:
    """A function building an instance from every field's value, slot by slot; or ``None``.

    Building through the class's ``__init__`` passes each key field through its
    :class:`~hmodel.model.keyslot.KeySlot` (key fields refuse to change, K10). A loaded
    row's values are already decoded and typed, and the guard only refuses *changes*, so
    setting the slots directly builds the same object. Only for a class whose
    ``__init__`` is attrs' own and whose fields have no validator or converter (``None``
    otherwise: use the class).
    """
    cls = info.cls
    if not info.plain_init:
        return None
    fields = attrs.fields(cls)
    if any(a.validator is not None or a.converter is not None for a in fields):
        return None
    expected = len(fields)
    new = object.__new__  # the class's own: plain_init rules out another
    setters = {a.name: _slot_setter(cls, a.name) for a in fields}

    def build(values: dict[str, Any]) -> Any:
        if len(values) != expected:
            return cls(**values)
        obj = new(cls)
        try:
            for name, value in values.items():
                setters[name](obj, value)
        except KeyError:  # not a field's name: the class words the error
            return cls(**values)
        return obj

    return build


#: A big-endian signed 8-byte long, as :class:`~hmodel.codecs.Long` stores it.
_LONG = struct.Struct(">q")


def _inline_decode(decode: Callable[[bytes], Any]) -> list[str] | None:
    """Lines decoding ``c.value`` into ``w`` as the codec of ``decode`` does, or ``None``.

    Only for the two codecs nearly every model uses, :class:`~hmodel.codecs.Long` (exactly
    8 bytes, big-endian two's complement) and :class:`~hmodel.codecs.Utf8`; a value they
    would refuse raises here too, and the mapper's full path words the error.
    """
    codec = getattr(decode, "__self__", None)
    if type(codec) is Long:
        return ["(w,) = _LONG(c.value)"]  # struct.error unless exactly 8 bytes
    if type(codec) is Utf8:
        return ["w = c.value.decode('utf-8')"]
    return None


def _slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """Set attribute ``name`` of an instance of ``cls`` without its ``__setattr__`` hooks.

    The slot's own descriptor where the class defines it (a third faster than
    ``object.__setattr__``, which looks the name up first), also behind a key field's
    :class:`~hmodel.model.keyslot.KeySlot` (which refuses a second assignment, K10: a
    generated reader fills an empty slot), else ``object.__setattr__``.
    """
    slot = vars(cls).get(name)
    if isinstance(slot, KeySlot):
        slot = slot.member
    if isinstance(slot, types.MemberDescriptorType):
        setter: Callable[[Any, Any], None] = slot.__set__
        return setter
    return lambda obj, value: object.__setattr__(obj, name, value)


def _storer(cls: type, name: str, setter: str) -> Callable[[str], str]:
    """How generated code sets field ``name`` of ``obj`` (an instance of ``cls``) to an expression.

    ``obj.name = ...`` (CPython's specialised store to a slot, a fifth of a call to the
    slot's descriptor) where that is the slot itself: a plain slot on a class that keeps
    ``object.__setattr__`` (a model whose fields have no validator or converter: its key
    fields refuse to change through their own :class:`~hmodel.model.keyslot.KeySlot`,
    not a class ``__setattr__``). Otherwise a call of ``setter`` (the name the generated
    code knows :func:`_slot_setter`'s function by): a key field, a class with its own
    ``__setattr__``.
    """
    plain = (
        vars(object)["__setattr__"] is getattr(cls, "__setattr__", None)
        and isinstance(vars(cls).get(name), types.MemberDescriptorType)
        and plain_name(name)
    )
    if plain:
        return lambda expression: f"obj.{name} = {expression}"
    return lambda expression: f"{setter}(obj, {expression})"


def row_reader(
    info: ModelInfo,
    key: CompiledKey,
    plan: tuple[ReadStep, ...],
    full: Callable[[Any, StoredField], Any],
    *,
    stamped: frozenset[bytes] | None = None,
) -> Callable[[Any, bool], Any]:
    """A straight-line function building an instance from a row.

    ``reader(result, verify)`` decodes the rowkey (``verify``: check its salt and
    hashes), decodes each field's cell with its codec (or takes its plain default) (from
    the protocol's own cell objects when the row's cells are
    :class:`~hmodel.backend.base.WireCells`: no ``Cell`` is made), and
    sets the instance's slots directly (see :func:`instance_builder` for when that is the
    same object the class would build). Maps, and missing cells of required fields or
    fields with a default factory, go through ``full(result, field)``, the mapper's full
    decode. Any exception (a cell that does not decode, a key that does not parse, the
    inline code's doubt) means "take the mapper's full path", which words the error.

    When every field reads one cell (no map, no full-path field) and the cells come as
    :class:`~hmodel.backend.base.ListCells` (Thrift2's list), the list is walked once in
    HBase's column order (family, then qualifier, as unsigned bytes), each field taking
    the next cell if it names its column; a cell left over (another column, a second
    version, a list out of that order) raises, so such a row takes the full path too.

    With ``stamped`` (the columns whose cells the server stamps: counters, the
    version), ``reader(result, verify)`` returns ``(instance, newest)``: ``newest`` the
    greatest timestamp of the row's cells outside ``stamped`` (0: none), read from the
    cells the fields read anyway; -1 when the row holds cells no field read (another
    model's, an undeclared qualifier, a map's), which the caller then looks through.

    Call it only for a model :func:`instance_builder` builds slot by slot.
    """
    names: dict[str, Any] = {"_new": object.__new__, "_cls": info.cls}
    names["_UndecidedError"], names["_LONG"] = _UndecidedError, _LONG.unpack
    names["_full"], names["_WireCells"], names["_ListCells"] = full, WireCells, ListCells
    lines = ["def read(result, verify):", "    row = result.row"]
    body, key_values = decode_lines(info.key, key.layout, names)
    lines.extend(body)
    start = ["    obj = _new(_cls)"]
    if stamped is not None:
        start.append("    top = gone = 0")  # the newest stamp; the fields without a cell
    for name, local in key_values.items():
        names[f"s_{local}"] = _slot_setter(info.cls, name)
        start.append(f"    s_{local}(obj, {local})")
    # Every cell a field reads is counted (no map or full-path field): then a row whose
    # cells come as a list in column order (ListCells) is walked once, in that order.
    exact = all(step[2] is not None for step in plan)
    lines.append("    cells = result.cells")
    if exact:
        walk = sorted(range(len(plan)), key=lambda index: _family_qualifier(plan[index][1]))
        lines.append("    if type(cells) is _ListCells:")
        lines.append("        listed = cells.listed")
        lines.append("        n = len(listed)")
        lines.append("        i = 0")
        walked = [*start]
        for index in walk:
            walked.extend(_field_lines(plan, index, names, stamped, walk=True))
        # A cell left over: another column, a second version, or not in column order.
        walked.append("    if i != n:")
        walked.append("        raise _UndecidedError")
        walked.append("    return obj" if stamped is None else "    return obj, top")
        lines.extend(f"    {line}" for line in walked)
    lines.append("    if type(cells) is _WireCells or type(cells) is _ListCells:")
    lines.append("        cells = cells.wire")  # the protocol's cells: .value, .timestamp
    lines.extend(start)
    for index in range(len(plan)):
        lines.extend(_field_lines(plan, index, names, stamped, walk=False))
    if stamped is None:
        lines.append("    return obj")
    elif exact:  # every cell was read when the fields with one are as many as the cells
        lines.append(f"    return obj, (top if {len(plan)} - gone == len(cells) else -1)")
    else:
        lines.append("    return obj, -1")
    exec(compile("\n".join(lines), f"<hmodel reader {info.name}>", "exec"), names)
    reader: Callable[[Any, bool], Any] = names["read"]
    return reader


def _family_qualifier(column: bytes | None) -> tuple[bytes, bytes]:
    """``(family, qualifier)`` of ``b"f:q"``: HBase's order of a row's cells (unsigned bytes)."""
    family, _, qualifier = (column or b"").partition(b":")
    return family, qualifier


def _field_lines(
    plan: tuple[ReadStep, ...],
    index: int,
    names: dict[str, Any],
    stamped: frozenset[bytes] | None,
    *,
    walk: bool,
) -> list[str]:
    """The reader's lines setting field ``plan[index]`` on ``obj`` (see :func:`row_reader`).

    ``walk``: the cell is the next of the list ``listed`` (at ``i``, of ``n``) when it
    names the field's column, else the field has none here; otherwise it is looked up
    in the mapping ``cells``.
    """
    name, column, decode, absent, stored = plan[index]
    names[f"f{index}"], names[f"s{index}"] = stored, _slot_setter(names["_cls"], name)
    store = _storer(names["_cls"], name, f"s{index}")
    raw = "c.value or b''"  # a cell without its value (Thrift's optional field) reads as b""
    if decode is None:
        return [f"    {store(f'_full(result, f{index})')}"]
    names[f"c{index}"], names[f"d{index}"], names[f"a{index}"] = column, decode, absent
    missing = f"_full(result, f{index})" if absent is FULL else f"a{index}"
    if walk:
        family, _, qualifier = (column or b"").partition(b":")
        names[f"g{index}"], names[f"q{index}"] = family, qualifier
        lines = [
            "    c = listed[i] if i < n else None",
            f"    if c is not None and c.qualifier == q{index} and c.family == g{index}:",
            "        i += 1",
            "    else:",
            "        c = None",
        ]
    else:
        lines = [f"    c = cells.get(c{index})"]
    inline = _inline_decode(decode)
    if inline is None and stamped is None:
        lines.append(f"    {store(f'{missing} if c is None else d{index}({raw})')}")
        return lines
    lines.append("    if c is None:")
    lines.append(f"        {store(missing)}")
    if stamped is not None and not walk:
        lines.append("        gone += 1")
    lines.append("    else:")
    if stamped is not None and column not in stamped:
        lines.append("        t = c.timestamp")
        lines.append("        if t > top:")
        lines.append("            top = t")
    if inline is None:
        lines.append(f"        {store(f'd{index}({raw})')}")
        return lines
    lines.extend(f"        {line}" for line in inline)
    lines.append(f"        {store('w')}")
    return lines


def _put_lines(column: str) -> list[str]:
    """Lines appending ``put(row, column, d, ts, ttl)``, built slot by slot.

    ``Put`` is a frozen attrs class without validators, converters or hooks, so setting its
    five slots directly builds the same object as its ``__init__``, a third faster.
    """
    return [
        "        p = _new(_put)",
        "        _put_row(p, row)",
        f"        _put_column(p, {column})",
        "        _put_value(p, d)",
        "        _put_timestamp(p, ts)",
        "        _put_ttl(p, ttl)",
        "        add(p)",
    ]


class _UndecidedError(Exception):
    """The generated writer met a case it does not decide: the mapper's loop will."""


def _write_lines(
    steps: tuple[WriteStep | MapField, ...],
    names: dict[str, Any],
    put_lines: Callable[[str], list[str]],
    delete_line: Callable[[str], str],
) -> list[str]:
    """The body of a generated writer: per field, its test, its encode, and what it adds.

    One value of exactly the annotation's class (the full type check for a union; none
    where the codec judges) is encoded (to exactly ``bytes``), bounded by its F11 size, and added by
    ``put_lines(column)``; ``None`` in a nullable field is added by
    ``delete_line(column)``; anything else raises :class:`_UndecidedError`. ``names``
    receives the constants the lines read.
    """
    names["_check"], names["_UndecidedError"] = check_value, _UndecidedError
    lines: list[str] = []
    for index, step in enumerate(steps):
        assert isinstance(step, tuple)
        name, column, encode, exact, bound, stored = step
        names[f"c{index}"], names[f"e{index}"], names[f"t{index}"] = column, encode, exact
        lines.append(f"    v = {attribute_of('obj', name)}")
        if exact is ANY_TYPE:
            lines.append("    if v is not None:")
        elif exact is None:  # a union: the full type check, as encode_value makes it
            names[f"h{index}"] = stored.value_type
            lines.append(f"    if v is not None and _check(v, h{index}):")
        else:
            lines.append(f"    if type(v) is t{index}:")
        lines.append(f"        d = e{index}(v)")
        lines.append(f"        if type(d) is not bytes or len(d) > {bound}:")
        lines.append("            raise _UndecidedError")
        lines.extend(put_lines(f"c{index}"))
        if stored.nullable:
            lines.append("    elif v is None:")
            lines.append(f"        {delete_line(f'c{index}')}")
        lines.append("    else:")
        lines.append("        raise _UndecidedError")
    return lines


def row_writer(
    steps: tuple[WriteStep | MapField, ...],
    put: type,
    delete: Callable[..., Any],
) -> Callable[[Any, bytes, int, int | None], list[Any]] | None:
    """A straight-line function returning the puts and deletes of a full save, or ``None``.

    ``writer(instance, row, timestamp, ttl)`` reads each written field, and for a value of
    exactly the annotation's class appends ``put(row, column, codec.encode(value),
    timestamp, ttl)``; for ``None`` in a nullable field, ``delete(row, column,
    timestamp)``. Anything else (another type, ``None`` in a required field, a cell over
    its F11 bound, a codec error) raises, and the mapper's loop, which words the errors,
    runs instead. The type test is the one ``encode_value`` makes: the exact class for a
    plain class (any other value takes the loop, which accepts subclasses and ``int`` for
    ``float``), ``check_value`` for a union, none where the codec judges. ``None`` for a
    model with map fields (the loop writes those).
    """
    if any(not isinstance(step, tuple) for step in steps):
        return None
    names: dict[str, Any] = {"_put": put, "_delete": delete, "_new": object.__new__}
    for attribute in ("row", "column", "value", "timestamp", "ttl"):
        names[f"_put_{attribute}"] = _slot_setter(put, attribute)
    lines = ["def write(obj, row, ts, ttl):", "    out = []", "    add = out.append"]
    lines.extend(
        _write_lines(steps, names, _put_lines, lambda column: f"add(_delete(row, {column}, ts))")
    )
    lines.append("    return out")
    exec(compile("\n".join(lines), "<hmodel writer>", "exec"), names)
    writer: Callable[[Any, bytes, int, int | None], list[Any]] = names["write"]
    return writer


def cell_writer(
    steps: tuple[WriteStep | MapField, ...],
) -> Callable[[Any], list[tuple[bytes, bytes | None]]] | None:
    """A straight-line function returning a full save's cells as ``(column, value)`` pairs.

    ``writer(instance)`` makes the same decisions as :func:`row_writer`'s writer, field by
    field and in the same order, but returns bare pairs for a
    :class:`~hmodel.backend.base.RowBatch`: ``(column, encoded value)`` for a put,
    ``(column, None)`` for the delete of a ``None`` nullable field (the row, timestamp
    and ttl are the batch's). It raises where that writer raises; ``None`` for a model
    with map fields.
    """
    if any(not isinstance(step, tuple) for step in steps):
        return None
    names: dict[str, Any] = {}
    lines = ["def cells(obj):", "    out = []", "    add = out.append"]
    lines.extend(
        _write_lines(
            steps,
            names,
            lambda column: [f"        add(({column}, d))"],
            lambda column: f"add(({column}, None))",
        )
    )
    lines.append("    return out")
    exec(compile("\n".join(lines), "<hmodel cell writer>", "exec"), names)
    writer: Callable[[Any], list[tuple[bytes, bytes | None]]] = names["cells"]
    return writer

"""The ``@model`` class decorator: checks a declaration and makes the class an attrs class."""

from __future__ import annotations

import datetime as dt
import inspect
import sys
import typing
import weakref
from collections.abc import Callable
from datetime import timedelta
from types import MappingProxyType
from typing import Any, NoReturn, TypeVar

import attrs

from hmodel.codecs import Codec, Raw, codec_for_type
from hmodel.errors import DeclarationError, HModelError, MonotonicKeyWarning
from hmodel.keys import Key
from hmodel.model.annotation import check_value, describe, dict_types, is_classvar, split_optional
from hmodel.model.column import ColumnName, parse_column, parse_family
from hmodel.model.info import (
    ColumnField,
    CounterField,
    KeyField,
    MapField,
    ModelInfo,
    StoredField,
    VersionField,
)
from hmodel.model.keyslot import guard_key_fields
from hmodel.model.limits import (
    DEFAULT_MAX_CELL_BYTES,
    DEFAULT_WARN_CELL_BYTES,
    monotonic_lead,
    warn,
)
from hmodel.model.specifier import (
    NO_DEFAULT,
    ColumnSpec,
    CounterSpec,
    ExtraSpec,
    MapSpec,
    Spec,
    field,
)
from hmodel.schema import Table

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:
    from typing_extensions import dataclass_transform

__all__ = ["model", "model_info", "model_infos_for"]

T = TypeVar("T")

_INFO = "__hmodel_model__"
_METADATA = "hmodel"
_MISSING = object()

# Every model with its table, in declaration order; weak so that models declared in a function
# (tests) disappear with their class. A list, not a dict: tables compare by value but a split
# policy need not be hashable.
_REGISTRY: list[tuple[Table, weakref.ref[type[Any]]]] = []


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
def model(
    table: Table,
    *,
    key: Key,
    ttl: timedelta | None = None,
    name: str | None = None,
    max_cell_bytes: int | None = DEFAULT_MAX_CELL_BYTES,
    warn_cell_bytes: int | None = DEFAULT_WARN_CELL_BYTES,
    allow_monotonic_key: bool | str = False,
    missing: str = "error",
) -> Callable[[type[T]], type[T]]:
    """Declare a model class: its rows live in ``table`` under rowkeys built by ``key``.

    The class becomes an attrs class (slots, ``__eq__``, ``__repr__``, keyword-only
    ``__init__``) and type checkers treat it like a dataclass. Its annotated attributes are:

    * **key fields**: the names in ``key.fields``, declared by a bare annotation
      (``user_id: str``); they live in the rowkey, not in columns (K1), and cannot be
      reassigned on an instance (K10: a key change is a delete plus an insert);
    * **column fields**: ``nickname: str = field("i:n")`` (F2, F7);
    * **map fields**: ``fans: dict[str, str] = map_field("f")`` (F6);
    * **counters**: ``views: int = counter("i:v")`` (F10);
    * at most one **version field**: ``version: int = version_field("i:_v")``.

    ``ClassVar`` attributes are left alone. Several models may share one table (R1, record
    types): give each key a different :class:`~hmodel.keys.Const` tag after the shared
    leading components, so a row decodes under exactly one of them; see
    :func:`model_infos_for`.

    Args:
        table: The table declaration.
        key: The rowkey declaration; every field it names must be annotated.
        ttl: Default per-cell TTL of this model's writes (F8), a positive whole number of
            milliseconds; it cannot outlive a family TTL, so it must not exceed the TTL of
            a family the model writes to.
        name: The model's name in messages; default: the class name.
        max_cell_bytes: The default ``max_bytes`` of the model's column and map fields
            (F11): a save, update or map put of a value whose encoded cell is longer is
            refused with :class:`~hmodel.errors.CellTooLargeError` before anything is
            sent. Default 10 MiB, HBase's own client limit (``hbase.client.keyvalue.maxsize``);
            ``None``: no limit.
        warn_cell_bytes: The default ``warn_bytes`` of the model's fields (F11): longer
            cells are written with a :class:`~hmodel.errors.CellSizeWarning`. Default
            100 KiB, the advice of F11; ``None``: never warn.
        allow_monotonic_key: A key that leads with a ``Timestamp`` or ``ReverseTimestamp``
            (after any ``Const`` tags, with no ``Salt``/``Hashed`` before it) sends every
            write to one region (K8), so the decorator warns with
            :class:`~hmodel.errors.MonotonicKeyWarning`. Pass ``True``, or better a reason
            (``"a few writes a day"``), to declare it deliberate and silence the warning.
            A reason in the class's ``__hmodel_ignore__ = {"HM-K8": "..."}`` (the
            silence of ``hmodel check``) counts as well.
        missing: How a row lacking the cell of a required field (no default, not
            ``Optional``) reads, for tables with sparse or legacy rows: ``"error"``, the
            default, raises :class:`~hmodel.errors.DecodeError` naming the row, column
            and field; ``"none"`` reads the field as ``None`` (saving such an instance
            back is refused until the field is set). Fields with defaults read their
            default either way.

    Raises:
        DeclarationError: The declaration is invalid; the message names the model and the
            field (family not in the table, bad column string, two fields on one column,
            a column inside a map's prefix, an annotation without a column, a key field
            missing or of a type its component cannot hold, ``history=True`` in a family
            keeping one version, ...).

    Example:
        >>> from hmodel.keys import Key, Str
        >>> from hmodel.schema import Family, Table
        >>> users = Table("user", [Family("i")])
        >>> @model(users, key=Key(Str("user_id")))
        ... class User:
        ...     user_id: str
        ...     nickname: str = field("i:n")
        >>> User(user_id="u1", nickname="bob")
        User(user_id='u1', nickname='bob')
    """

    def decorate(cls: type[T]) -> type[T]:
        return _Declaration(
            cls,
            table=table,
            key=key,
            ttl=ttl,
            name=name,
            max_cell_bytes=max_cell_bytes,
            warn_cell_bytes=warn_cell_bytes,
            allow_monotonic_key=allow_monotonic_key,
            missing=missing,
        ).build()

    return decorate


def model_info(model: object) -> ModelInfo:
    """Return the :class:`ModelInfo` of a model class (or of an instance of one).

    Raises:
        DeclarationError: ``model`` is not declared with :func:`model`.
    """
    cls = model if isinstance(model, type) else type(model)
    info = cls.__dict__.get(_INFO)
    if not isinstance(info, ModelInfo):
        raise DeclarationError(
            f"{cls.__qualname__} is not a model: decorate it with @model(table, key=...)",
            value=model,
        )
    return info


def model_infos_for(table: Table) -> list[ModelInfo]:
    """Return the models declared on ``table`` (R1, record types), in declaration order.

    Tables compare by value, so a model declared on an equal :class:`~hmodel.schema.Table`
    counts. Models whose classes were garbage-collected are not listed.
    """
    _REGISTRY[:] = [(known, ref) for known, ref in _REGISTRY if ref() is not None]
    found = (ref() for known, ref in _REGISTRY if known == table)
    return [model_info(cls) for cls in found if cls is not None]


def _key_types(key: Key) -> dict[str, type]:
    """The Python type of each key field, from the key's value components."""
    return {name: key.component(name).python_type for name in key.fields}


class _Declaration:
    """One run of the decorator over one class: resolves, checks and builds."""

    def __init__(
        self,
        cls: type[Any],
        *,
        table: Table,
        key: Key,
        ttl: timedelta | None,
        name: str | None,
        max_cell_bytes: int | None = DEFAULT_MAX_CELL_BYTES,
        warn_cell_bytes: int | None = DEFAULT_WARN_CELL_BYTES,
        allow_monotonic_key: bool | str = False,
        missing: str = "error",
    ) -> None:
        self.cls = cls
        self.name = cls.__name__ if name is None else name
        if not isinstance(self.name, str) or not self.name:
            self.fail("a model name must be a non-empty string", value=name)
        if not isinstance(table, Table):
            self.fail("the table must be a hmodel.schema.Table", value=table)
        if not isinstance(key, Key):
            self.fail("the key must be a hmodel.keys.Key", value=key)
        self.table = table
        self.key = key
        self.ttl = self._check_ttl(ttl)
        self.key_types = _key_types(key)
        self.max_cell_bytes, self.warn_cell_bytes = self._check_limits(
            None, max_cell_bytes, warn_cell_bytes, "max_cell_bytes", "warn_cell_bytes"
        )
        if not isinstance(allow_monotonic_key, bool | str) or allow_monotonic_key == "":
            self.fail(
                "allow_monotonic_key is a bool or a non-empty reason", value=allow_monotonic_key
            )
        self.allow_monotonic_key = allow_monotonic_key
        if missing not in ("error", "none"):
            self.fail('missing must be "error" or "none"', value=missing)
        self.missing = missing

    # --- errors -----------------------------------------------------------------------

    def fail(self, message: str, *, field: str | None = None, value: Any = None) -> NoReturn:
        where = f"model {self.name!r}" + ("" if field is None else f", field {field!r}")
        table = getattr(self, "table", None)
        raise DeclarationError(
            f"{where}: {message}",
            table=None if table is None else table.full_name,
            field=field,
            value=value,
        )

    # --- the steps ----------------------------------------------------------------------

    def build(self) -> type[Any]:
        for base in self.cls.__mro__[1:]:
            if _INFO in vars(base):
                self.fail(
                    f"a model cannot subclass the model {vars(base)[_INFO].name!r}; declare "
                    "its fields on the new model",
                )
        hints = self._hints()
        own = inspect.get_annotations(self.cls)
        for attr_name, value in list(vars(self.cls).items()):
            if isinstance(value, Spec) and attr_name not in own:
                self.fail("a field needs a type annotation", field=attr_name)
        for attr_name in own:
            hint = hints[attr_name]
            if is_classvar(hint):
                continue
            setattr(self.cls, attr_name, self._attribute(attr_name, hint))
        plain_init = (
            getattr(self.cls, "__init__", None) is object.__init__
            and getattr(self.cls, "__new__", None) is object.__new__
        ) and not any(
            hasattr(self.cls, hook) for hook in ("__attrs_pre_init__", "__attrs_post_init__")
        )
        cls = attrs.define(
            self.cls, slots=True, kw_only=True, eq=True, repr=True, auto_attribs=True
        )
        key_fields: dict[str, KeyField] = {}
        stored: dict[str, StoredField] = {}
        for attribute in attrs.fields(cls):
            resolved = attribute.metadata.get(_METADATA)
            if isinstance(resolved, KeyField):
                key_fields[attribute.name] = resolved
            elif resolved is not None:
                stored[attribute.name] = resolved
            else:
                self._no_column(attribute.name)
        for field_name in self.key.fields:
            if field_name not in key_fields:
                self.fail(
                    f"the key names field {field_name!r} but the class does not annotate it",
                    field=field_name,
                )
        guard_key_fields(cls, self.name, tuple(key_fields))
        self._check_layout(stored)
        self._bind_extra(stored)
        self._adopt_ignored_codes()
        info = ModelInfo(
            cls=cls,
            name=self.name,
            table=self.table,
            key=self.key,
            ttl=self.ttl,
            key_fields=tuple(key_fields[name] for name in self.key.fields),
            fields=MappingProxyType(stored),
            max_cell_bytes=self.max_cell_bytes,
            warn_cell_bytes=self.warn_cell_bytes,
            allow_monotonic_key=self.allow_monotonic_key,
            plain_init=plain_init,
            missing=self.missing,
        )
        self._check_monotonic()
        setattr(cls, _INFO, info)
        _REGISTRY.append((self.table, weakref.ref(cls)))
        return cls

    def _adopt_ignored_codes(self) -> None:
        # ``hmodel check`` silences its findings with ``__hmodel_ignore__ = {"HM-K8":
        # "reason"}`` beside the declaration; a reason given there silences the decorator's
        # K8 warning as well, so one reason covers both.
        ignored = vars(self.cls).get("__hmodel_ignore__")
        reason = ignored.get("HM-K8") if isinstance(ignored, dict) else None
        if self.allow_monotonic_key is False and isinstance(reason, str) and reason.strip():
            self.allow_monotonic_key = reason

    def _check_monotonic(self) -> None:
        lead = monotonic_lead(self.key)
        if lead is None or self.allow_monotonic_key:
            return
        warn(
            MonotonicKeyWarning(
                f"model {self.name!r}: the key leads with {type(lead).__name__} {lead.name!r}, "
                "a monotonic value, so every new row lands next to the last one and all "
                "writes go to one region (K8). Lead with an entity id "
                "(Key(Str('metric'), Timestamp('ts'))) or a Salt/Hashed prefix, or pass "
                "allow_monotonic_key='<why this is fine>'"
            )
        )

    def _check_limits(
        self,
        attr_name: str | None,
        max_bytes: object,
        warn_bytes: object,
        max_name: str = "max_bytes",
        warn_name: str = "warn_bytes",
    ) -> tuple[int | None, int | None]:
        for value, label in ((max_bytes, max_name), (warn_bytes, warn_name)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                self.fail(
                    f"{label} must be None or an int >= 1 (F11)", field=attr_name, value=value
                )
        if isinstance(max_bytes, int) and isinstance(warn_bytes, int) and warn_bytes > max_bytes:
            self.fail(
                f"{warn_name} ({warn_bytes}) is above {max_name} ({max_bytes}): such cells "
                "are refused, never warned about",
                field=attr_name,
                value=warn_bytes,
            )
        return max_bytes, warn_bytes  # type: ignore[return-value]  # checked above

    def _field_limits(self, attr_name: str, spec: ColumnSpec | MapSpec) -> dict[str, int | None]:
        """The field's own limits (``None``: the model's apply, see ``ModelInfo``)."""
        own_max, own_warn = self._check_limits(attr_name, spec.max_bytes, spec.warn_bytes)
        return {"max_bytes": own_max, "warn_bytes": own_warn}

    def _check_ttl(self, ttl: object) -> timedelta | None:
        if ttl is None:
            return None
        if not isinstance(ttl, timedelta):
            self.fail("ttl must be a datetime.timedelta", value=ttl)
        if ttl <= timedelta(0) or ttl % timedelta(milliseconds=1):
            self.fail("ttl must be a positive whole number of milliseconds (F8)", value=ttl)
        return ttl

    def _hints(self) -> dict[str, Any]:
        try:
            return typing.get_type_hints(self.cls)
        except Exception as error:  # any failure to evaluate an annotation
            self.fail(
                f"cannot resolve the annotations ({type(error).__name__}: {error}); "
                "types named in annotations must be importable from the class's module",
            )

    def _no_column(self, attr_name: str) -> NoReturn:
        self.fail(
            f"field {attr_name!r} has no column: use field('f:q') (or map_field, counter, "
            "version_field), or name it in the key",
            field=attr_name,
        )

    def _attribute(self, attr_name: str, hint: Any) -> Any:
        value = vars(self.cls).get(attr_name, _MISSING)
        if attr_name in self.key_types:
            if isinstance(value, Spec):
                self.fail(
                    "a key field lives in the rowkey: declare it with a bare annotation, "
                    "without field()",
                    field=attr_name,
                )
            resolved = self._key_field(attr_name, hint)
            if value is not _MISSING and not check_value(value, resolved.python_type):
                self.fail(f"the default is not a {describe(hint)}", field=attr_name, value=value)
            default = attrs.NOTHING if value is _MISSING else value
            # Immutable once set (K10): guard_key_fields, once the class is built.
            return attrs.field(default=default, metadata={_METADATA: resolved})
        if not isinstance(value, Spec):
            self._no_column(attr_name)
        if isinstance(value, ColumnSpec):
            column = self._column_field(attr_name, hint, value)
            if value.factory is not None:
                return attrs.field(factory=value.factory, metadata={_METADATA: column})
            default = column.make_default() if column.has_default else attrs.NOTHING
            return attrs.field(default=default, metadata={_METADATA: column})
        if isinstance(value, MapSpec):
            return attrs.field(
                factory=dict, metadata={_METADATA: self._map_field(attr_name, hint, value)}
            )
        if isinstance(value, ExtraSpec):
            return attrs.field(
                factory=dict, metadata={_METADATA: self._extra_field(attr_name, hint, value)}
            )
        if isinstance(value, CounterSpec):
            counter = CounterField(
                attr_name, *self._int_column(attr_name, hint, value.column, "counter")
            )
            return attrs.field(default=0, metadata={_METADATA: counter})
        version = VersionField(
            attr_name, *self._int_column(attr_name, hint, value.column, "version field")
        )
        return attrs.field(default=0, metadata={_METADATA: version})

    # --- one field at a time ------------------------------------------------------------

    def _key_field(self, attr_name: str, hint: Any) -> KeyField:
        expected = self.key_types[attr_name]
        if hint is not expected:  # exactly: a subclass would decode as the base type
            self.fail(
                f"the key component holds {describe(expected)}, "
                f"so the field must be annotated {describe(expected)}, not {describe(hint)}",
                field=attr_name,
                value=hint,
            )
        return KeyField(attr_name, expected)

    def _column(self, attr_name: str, text: str) -> ColumnName:
        try:
            column = parse_column(text)
        except DeclarationError as error:
            self.fail(error.message, field=attr_name, value=text)
        self._family(attr_name, column.family)
        return column

    def _family(self, attr_name: str, family: str) -> None:
        names = [f.name for f in self.table.families]
        if family not in names:
            self.fail(
                f"family {family!r} is not in table {self.table.name!r} "
                f"(its families: {', '.join(names)})",
                field=attr_name,
                value=family,
            )

    def _codec(self, attr_name: str, given: Codec[Any] | None, hint: Any, what: str) -> Codec[Any]:
        if given is not None:
            if not isinstance(given, Codec):
                self.fail(f"the {what} must be a hmodel.codecs.Codec", field=attr_name, value=given)
            self._check_codec_type(attr_name, given, hint, what)
            return given
        try:
            return codec_for_type(hint)
        except HModelError as error:
            self.fail(
                f"no default {what} for {describe(hint)} ({error.message}); pass one explicitly",
                field=attr_name,
                value=hint,
            )

    def _check_codec_type(self, attr_name: str, codec: Codec[Any], hint: Any, what: str) -> None:
        value_type, _ = split_optional(hint)
        if not isinstance(value_type, type) or typing.get_origin(value_type) is not None:
            return
        accepted = (
            codec.python_type if isinstance(codec.python_type, tuple) else (codec.python_type,)
        )
        if value_type is object or any(_compatible(value_type, kind) for kind in accepted):
            return
        self.fail(
            f"the {what} {codec!r} handles {' or '.join(describe(k) for k in accepted)}, "
            f"not {describe(value_type)}",
            field=attr_name,
            value=codec,
        )

    def _column_field(self, attr_name: str, hint: Any, spec: ColumnSpec) -> ColumnField:
        column = self._column(attr_name, spec.column)
        value_type, nullable = split_optional(hint)
        if spec.default is not NO_DEFAULT and spec.factory is not None:
            self.fail("give a default or a factory, not both", field=attr_name)
        if spec.factory is not None and not callable(spec.factory):
            self.fail("factory must be callable", field=attr_name, value=spec.factory)
        if isinstance(spec.default, list | dict | set | bytearray):
            self.fail(
                "a mutable default would be shared by every instance; use factory=",
                field=attr_name,
                value=spec.default,
            )
        if spec.default is None and not nullable:
            self.fail(
                f"default None needs an Optional annotation ({describe(hint)} | None)",
                field=attr_name,
            )
        if nullable and (spec.factory is not None or spec.default not in (None, NO_DEFAULT)):
            # None is stored as the absence of the cell, so a stored None could not be told
            # from a row written before the field existed: it would read back as the default.
            self.fail(
                "an Optional field's default must be None (None is stored as an absent cell, "
                "so any other default would replace a saved None on reading)",
                field=attr_name,
                value=spec.default if spec.factory is None else spec.factory,
            )
        if (
            spec.default is not None
            and spec.default is not NO_DEFAULT
            and not check_value(spec.default, value_type)
        ):
            self.fail(
                f"the default is not a {describe(value_type)}", field=attr_name, value=spec.default
            )
        if not isinstance(spec.history, bool):
            self.fail("history must be a bool", field=attr_name, value=spec.history)
        if spec.history:
            family = self.table.family(column.family)
            if family.versions < 2:
                self.fail(
                    f"history=True needs a family keeping several versions, but family "
                    f"{family.name!r} has VERSIONS={family.versions} (F7)",
                    field=attr_name,
                )
        codec = self._codec(attr_name, spec.codec, hint, "codec")
        return ColumnField(
            name=attr_name,
            family=column.family,
            qualifier=column.qualifier,
            codec=codec,
            value_type=value_type,
            nullable=nullable,
            default=spec.default,
            factory=spec.factory,
            history=spec.history,
            **self._field_limits(attr_name, spec),
        )

    def _map_field(self, attr_name: str, hint: Any, spec: MapSpec) -> MapField:
        try:
            family = parse_family(spec.family)
        except DeclarationError:
            self.fail(
                "map_field takes a family name such as 'f' (put a qualifier prefix in prefix=)",
                field=attr_name,
                value=spec.family,
            )
        self._family(attr_name, family)
        types = dict_types(hint)
        if types is None:
            self.fail(
                f"a map field is annotated dict[K, V], not {describe(hint)}",
                field=attr_name,
                value=hint,
            )
        if not isinstance(spec.prefix, str):
            self.fail("prefix must be a str", field=attr_name, value=spec.prefix)
        try:
            prefix = spec.prefix.encode("utf-8")
        except UnicodeEncodeError:
            self.fail("prefix must have a UTF-8 form", field=attr_name, value=spec.prefix)
        for part, what in ((types[0], "keys"), (types[1], "values")):
            if split_optional(part)[1]:
                self.fail(
                    f"map {what} cannot be None: an absent entry is stored as no cell",
                    field=attr_name,
                    value=hint,
                )
        limits = self._field_limits(attr_name, spec)
        return MapField(
            name=attr_name,
            family=family,
            prefix=prefix,
            key_codec=self._codec(attr_name, spec.key_codec, types[0], "key codec"),
            value_codec=self._codec(attr_name, spec.value_codec, types[1], "value codec"),
            max_bytes=limits["max_bytes"],
            warn_bytes=limits["warn_bytes"],
        )

    def _extra_field(self, attr_name: str, hint: Any, spec: ExtraSpec) -> MapField:
        if spec.family is not None:
            try:
                family = parse_family(spec.family)
            except DeclarationError:
                self.fail("extra_field takes a family name such as 'd'", field=attr_name)
            self._family(attr_name, family)
        if dict_types(hint) != (bytes, bytes):
            self.fail(
                f"a catch-all is annotated dict[bytes, bytes], not {describe(hint)}",
                field=attr_name,
                value=hint,
            )
        return MapField(
            name=attr_name,
            family=spec.family or "",
            prefix=b"",
            key_codec=Raw(),
            value_codec=Raw(),
            extra=True,
            families=tuple(f.name.encode() for f in self.table.families),
        )

    def _bind_extra(self, stored: dict[str, StoredField]) -> None:
        """Tell the catch-all which columns and map prefixes the other fields own."""
        extras = [f for f in stored.values() if isinstance(f, MapField) and f.extra]
        if len(extras) > 1:
            self.fail("a model has at most one extra_field", field=extras[1].name)
        for extra in extras:
            others = [f for f in stored.values() if f is not extra]
            stored[extra.name] = attrs.evolve(
                extra,
                claimed=frozenset(f.column for f in others if not isinstance(f, MapField)),
                others=tuple((f.family_bytes, f.prefix) for f in others if isinstance(f, MapField)),
            )

    def _int_column(self, attr_name: str, hint: Any, text: str, what: str) -> tuple[str, bytes]:
        if hint is not int:
            self.fail(
                f"a {what} is annotated int, not {describe(hint)}", field=attr_name, value=hint
            )
        column = self._column(attr_name, text)
        return column.family, column.qualifier

    # --- the whole model ----------------------------------------------------------------

    def _check_layout(self, stored: dict[str, StoredField]) -> None:
        exact: dict[bytes, str] = {}
        maps = [f for f in stored.values() if isinstance(f, MapField) and not f.extra]
        versions = [f.name for f in stored.values() if isinstance(f, VersionField)]
        if len(versions) > 1:
            self.fail(f"a model has at most one version field, not {versions}", field=versions[1])
        for item in stored.values():
            if isinstance(item, MapField):
                continue
            other = exact.get(item.column)
            if other is not None:
                self.fail(
                    f"column {item.column.decode(errors='backslashreplace')!r} is already "
                    f"used by field {other!r}",
                    field=item.name,
                    value=item.column,
                )
            exact[item.column] = item.name
            for owner in maps:
                if owner.qualifier_suffix(item.column) is not None:
                    self.fail(
                        f"column {item.column.decode(errors='backslashreplace')!r} lies inside "
                        f"map field {owner.name!r} (family {owner.family!r}, prefix "
                        f"{owner.prefix.decode()!r})",
                        field=item.name,
                        value=item.column,
                    )
        for i, first in enumerate(maps):
            for second in maps[i + 1 :]:
                if first.family == second.family and (
                    first.prefix.startswith(second.prefix) or second.prefix.startswith(first.prefix)
                ):
                    self.fail(
                        f"map fields {second.name!r} and {first.name!r} overlap in family "
                        f"{first.family!r} (prefixes {first.prefix.decode()!r} and "
                        f"{second.prefix.decode()!r})",
                        field=second.name,
                    )
        if self.ttl is not None:
            self._check_ttl_fits(stored, self.ttl)

    def _check_ttl_fits(self, stored: dict[str, StoredField], ttl: timedelta) -> None:
        for item in stored.values():
            if isinstance(item, CounterField | VersionField):
                continue
            if isinstance(item, MapField) and not item.family:
                continue  # a catch-all of every family: its cells are another program's
            family = self.table.family(item.family)
            if family.has_ttl and ttl > timedelta(seconds=family.ttl):
                self.fail(
                    f"ttl {ttl} exceeds the TTL of family {family.name!r} ({family.ttl} s); "
                    "a cell cannot outlive its family's TTL (F8)",
                    field=item.name,
                    value=ttl,
                )


def _compatible(value_type: type, kind: type) -> bool:
    """Whether every value of the annotation ``value_type`` is one the codec handles.

    One way only (an ``int`` field cannot use a ``bool`` codec, nor a ``datetime`` field
    a ``date`` codec, though the types are related), and ``bool`` is never an ``int``
    here, as the codecs refuse it.
    """
    if kind is int and issubclass(value_type, bool):
        return False
    if kind is dt.date and issubclass(value_type, dt.datetime):
        return False
    return issubclass(value_type, kind)

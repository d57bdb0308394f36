"""A mypy plugin: key-field keyword arguments of repository calls checked against the model."""

from __future__ import annotations

from collections.abc import Callable

from mypy.nodes import (
    ARG_NAMED,
    ARG_NAMED_OPT,
    ARG_STAR2,
    AssignmentStmt,
    CallExpr,
    NameExpr,
    RefExpr,
    TypeInfo,
    Var,
)
from mypy.plugin import ClassDefContext, MethodSigContext, Plugin
from mypy.plugins.dataclasses import dataclass_class_maker_callback
from mypy.types import AnyType, CallableType, Instance, Type, TypeOfAny, get_proper_type

__all__ = ["HModelPlugin", "plugin"]

#: Where the plugin keeps a model's key field names (serialised in mypy's cache).
_METADATA = "hmodel"

_MODEL = "hmodel.model.declaration.model"

#: The calls of ``field``-like specifiers: an attribute assigned one is a column, not a key.
_SPECIFIERS = frozenset(
    f"hmodel.model.specifier.{name}"
    for name in ("field", "map_field", "counter", "version_field", "extra_field")
)

#: Methods of ``Repository[M]`` whose ``**key`` are M's key fields, every one required.
_KEYED = frozenset(
    f"hmodel.repository.repository.Repository.{name}"
    for name in ("get", "exists", "get_fields", "history")
)

#: Methods whose ``**key`` are M's key fields, all or none (an instance may be passed instead).
_KEYED_OPTIONAL = frozenset({"hmodel.repository.repository.Repository.delete"})


def _declare(ctx: ClassDefContext) -> bool:
    """Apply ``dataclass_transform`` (a plugin hook replaces it), then record the key fields.

    The key fields are the annotated attributes not assigned a field specifier.
    """
    done = dataclass_class_maker_callback(ctx)
    names: list[str] = []
    for stmt in ctx.cls.defs.body:
        if not isinstance(stmt, AssignmentStmt) or len(stmt.lvalues) != 1:
            continue
        target = stmt.lvalues[0]
        if not isinstance(target, NameExpr) or not stmt.new_syntax:
            continue
        node = ctx.cls.info.names.get(target.name)
        if node is None or not isinstance(node.node, Var) or node.node.is_classvar:
            continue
        rvalue = stmt.rvalue
        if (
            isinstance(rvalue, CallExpr)
            and isinstance(rvalue.callee, RefExpr)
            and rvalue.callee.fullname in _SPECIFIERS
        ):
            continue
        names.append(target.name)
    ctx.cls.info.metadata[_METADATA] = {"key": names}
    return done


def _model_of(receiver: Type) -> TypeInfo | None:
    """The TypeInfo of M in ``Repository[M]`` when M is a declared model, else ``None``."""
    receiver = get_proper_type(receiver)
    if not isinstance(receiver, Instance) or not receiver.args:
        return None
    model = get_proper_type(receiver.args[0])
    if not isinstance(model, Instance) or _METADATA not in model.type.metadata:
        return None
    return model.type


def _with_key_fields(optional: bool) -> Callable[[MethodSigContext], CallableType]:
    def hook(ctx: MethodSigContext) -> CallableType:
        signature = ctx.default_signature
        info = _model_of(ctx.type)
        if info is None or ARG_STAR2 not in signature.arg_kinds:
            return signature
        star2 = signature.arg_kinds.index(ARG_STAR2)
        kinds = list(signature.arg_kinds[:star2])
        names = list(signature.arg_names[:star2])
        types = list(signature.arg_types[:star2])
        for name in info.metadata[_METADATA]["key"]:
            node = info.names.get(name)
            field_type = node.node.type if node is not None and isinstance(node.node, Var) else None
            kinds.append(ARG_NAMED_OPT if optional else ARG_NAMED)
            names.append(name)
            types.append(field_type or AnyType(TypeOfAny.unannotated))
        return signature.copy_modified(arg_kinds=kinds, arg_names=names, arg_types=types)

    return hook


class HModelPlugin(Plugin):
    """Checks ``repo.get(user_id=...)`` and friends against the model's key fields.

    Enable it in the mypy configuration (``plugins = ["hmodel.mypy_plugin"]``). A model's key
    fields are its annotated attributes not assigned ``field()``, ``map_field()``,
    ``counter()`` or ``version_field()`` (the rule ``@model`` itself follows). On a
    ``Repository[M]`` of a declared model, the ``**key`` of
    :meth:`~hmodel.repository.Repository.get`,
    :meth:`~hmodel.repository.Repository.exists`,
    :meth:`~hmodel.repository.Repository.get_fields` and
    :meth:`~hmodel.repository.Repository.history` become keyword arguments named and
    typed like M's key fields, all required (all optional for
    :meth:`~hmodel.repository.Repository.delete`, which takes an instance instead): a
    misspelt or missing key field, or a value of the wrong type, is a type
    error. Without the plugin the calls stay typed ``**key: Any``.
    """

    def get_class_decorator_hook_2(self, fullname: str) -> Callable[[ClassDefContext], bool] | None:
        """Record the key fields of classes declared with ``@model``."""
        return _declare if fullname == _MODEL else None

    def get_method_signature_hook(
        self, fullname: str
    ) -> Callable[[MethodSigContext], CallableType] | None:
        """Type the ``**key`` of the keyed repository methods."""
        if fullname in _KEYED:
            return _with_key_fields(optional=False)
        if fullname in _KEYED_OPTIONAL:
            return _with_key_fields(optional=True)
        return None


def plugin(version: str) -> type[Plugin]:
    """The entry point mypy calls (``plugins = ["hmodel.mypy_plugin"]``)."""
    return HModelPlugin

"""ForwardingBackend: every Backend method passed on, through one path, results untouched."""

from __future__ import annotations

import doctest
import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any, ParamSpec, TypeVar

import pytest

from hmodel.backend import Backend, ForwardingBackend, forwarding
from hmodel.backend.memory import MemoryBackend
from hmodel.schema import Family, Table
from hmodel.testing import fault
from hmodel.testing.fault import FaultyBackend
from hmodel.testing.random_fault import RandomFaultBackend

P = ParamSpec("P")
T = TypeVar("T")

#: Every public method of the protocol, read from the class: a method added to Backend is
#: here at once, and fails below until ForwardingBackend passes it on.
METHODS = sorted(
    name
    for name, member in inspect.getmembers(Backend, inspect.isfunction)
    if not name.startswith("_")
)
#: Passed on as they are, not through ``_forward``: arithmetic and naming, no request.
DIRECT = {"mutate_round_trips", "server_table_name"}


class Spy(Backend):
    """Records every call with its arguments and answers each with an object of its own."""

    capabilities = frozenset({"check_and_mutate", "spied"})
    rpc_names = {"get": "spyGet"}  # noqa: RUF012 -- a class attribute of the protocol

    def __init__(self) -> None:
        self.seen: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.answers = {name: object() for name in METHODS}


def _recorder(name: str) -> Callable[..., Any]:
    def record(self: Spy, *args: Any, **kwargs: Any) -> Any:
        self.seen.append((name, args, kwargs))
        return self.answers[name]

    record.__name__ = name
    return record


for _name in METHODS:
    setattr(Spy, _name, _recorder(_name))
Spy.__abstractmethods__ = frozenset()


class Counting(ForwardingBackend):
    """Sees the name of every call that goes through ``_forward``."""

    def __init__(self, inner: Backend) -> None:
        super().__init__(inner)
        self.forwarded: list[str] = []

    def _forward(
        self, method: str, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        self.forwarded.append(method)
        return super()._forward(method, call, *args, **kwargs)


WRAPPERS: dict[str, Callable[[Backend], Backend]] = {
    "ForwardingBackend": ForwardingBackend,
    "FaultyBackend": FaultyBackend,
    "RandomFaultBackend (rate 0)": lambda inner: RandomFaultBackend(inner, rate=0),
    "a _forward override": Counting,
}


def _arguments(name: str) -> tuple[list[object], dict[str, object]]:
    """An argument of its own for every parameter of ``Backend.<name>``, as declared."""
    args: list[object] = []
    kwargs: dict[str, object] = {}
    for parameter in list(inspect.signature(getattr(Backend, name)).parameters.values())[1:]:
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = object()
        else:
            args.append(object())
    return args, kwargs


def _bound(name: str, args: Any, kwargs: Any) -> dict[str, Any]:
    return dict(inspect.signature(getattr(Backend, name)).bind(None, *args, **kwargs).arguments)


def test_forwarding_backend_defines_every_backend_method_itself() -> None:
    """No protocol method is left to Backend's default (an abstract one, or a refusal)."""
    assert METHODS  # the introspection found the protocol
    assert [name for name in METHODS if name not in vars(ForwardingBackend)] == []
    assert not ForwardingBackend.__abstractmethods__


@pytest.mark.parametrize("wrap", list(WRAPPERS.values()), ids=list(WRAPPERS))
@pytest.mark.parametrize("name", METHODS)
def test_every_call_reaches_the_wrapped_backend_as_given(
    wrap: Callable[[Backend], Backend], name: str
) -> None:
    """Same arguments in, the wrapped backend's very result out (``None`` for a -> None)."""
    spy = Spy()
    wrapper = wrap(spy)
    args, kwargs = _arguments(name)
    result = getattr(wrapper, name)(*args, **kwargs)
    (seen,) = spy.seen
    assert seen[0] == name
    assert _bound(name, seen[1], seen[2]) == _bound(name, args, kwargs)
    returns = inspect.signature(getattr(Backend, name)).return_annotation
    assert result is (None if returns == "None" else spy.answers[name])


def test_every_call_but_arithmetic_goes_through_forward() -> None:
    """A wrapper that overrides ``_forward`` sees every protocol call by its name."""
    counting = Counting(Spy())
    for name in METHODS:
        args, kwargs = _arguments(name)
        getattr(counting, name)(*args, **kwargs)
    assert counting.forwarded == [name for name in METHODS if name not in DIRECT]


def test_capabilities_rpc_names_and_round_trips_are_the_wrapped_backends() -> None:
    """Read at each access: a wrapper explains and counts as the backend it wraps."""
    spy = Spy()
    wrapper = ForwardingBackend(spy)
    assert wrapper.capabilities == spy.capabilities
    assert wrapper.rpc_names == {"get": "spyGet"}
    spy.round_trips = 7
    assert wrapper.round_trips == 7


def test_the_context_manager_closes_the_wrapped_backend() -> None:
    inner = MemoryBackend()
    with ForwardingBackend(inner) as wrapper:
        wrapper.create_table(Table("t", [Family("f")]))
        assert inner.list_tables() == ["t"]
    with pytest.raises(Exception, match="closed"):
        inner.list_tables()


def test_the_wrapped_backend_can_be_swapped_between_calls() -> None:
    """Each call looks up the wrapped backend's method when it is made."""
    wrapper = ForwardingBackend(MemoryBackend())
    wrapper.create_table(Table("t", [Family("f")]))
    wrapper.inner = MemoryBackend()
    assert wrapper.list_tables() == []


@pytest.mark.parametrize("module", [forwarding, fault])
def test_the_docstring_examples_run(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0

"""The @model decorator: valid declarations, and every invalid one refused by name (F2-F10, K10)."""

# No ``from __future__ import annotations``: the models below are declared inside test
# functions, and their annotations must evaluate without the module's globals.

from datetime import timedelta
from decimal import Decimal
from typing import Any, ClassVar

import attrs
import pytest

from hmodel.codecs import Int32, Json, Utf8
from hmodel.errors import DeclarationError, ValidationError
from hmodel.keys import Const, Int, Key, Str
from hmodel.model import (
    ColumnField,
    CounterField,
    MapField,
    VersionField,
    counter,
    field,
    map_field,
    model,
    model_info,
    model_infos_for,
    version_field,
)
from hmodel.schema import Family, Table

USERS = Table("user", [Family("i", versions=3), Family("f", ttl=3600)])
KEY = Key(Str("user_id"))


def test_a_model_is_an_attrs_class_with_keyword_arguments_eq_and_repr() -> None:
    @model(USERS, key=KEY)
    class User:
        user_id: str
        nickname: str = field("i:n")

    user = User(user_id="u1", nickname="bob")

    assert user == User(user_id="u1", nickname="bob")
    assert repr(user) == "User(user_id='u1', nickname='bob')"
    with pytest.raises(TypeError):
        User("u1", "bob")  # type: ignore[call-arg]
    assert "__slots__" in vars(User)
    assert attrs.has(User)


def test_model_info_describes_where_each_field_lives() -> None:
    @model(USERS, key=KEY, ttl=timedelta(minutes=1), name="MicroblogUser")
    class User:
        user_id: str
        nickname: str = field("i:n")
        fans: dict[str, str] = map_field("f")
        views: int = counter("i:v")
        version: int = version_field("i:_v")

    info = model_info(User)

    assert (info.cls, info.name, info.table, info.key) == (User, "MicroblogUser", USERS, KEY)
    assert info.key_field_names == ("user_id",)
    assert info.columns == {"nickname": ColumnField("nickname", "i", b"n", Utf8(), str, False)}
    assert info.maps == {"fans": MapField("fans", "f", b"", Utf8(), Utf8())}
    assert info.counters == {"views": CounterField("views", "i", b"v")}
    assert info.version == VersionField("version", "i", b"_v")
    assert info.version_field == "version"
    assert list(info.fields) == ["nickname", "fans", "views", "version"]
    assert (info.ttl, info.ttl_ms) == (timedelta(minutes=1), 60_000)
    assert info.families == ("i", "f")
    assert model_info(User(user_id="u", nickname="n")) is info


def test_defaults_optional_fields_factories_counters_and_maps() -> None:
    @model(USERS, key=KEY)
    class User:
        user_id: str
        nickname: str = field("i:n", default="anon")
        address: str | None = field("i:a")
        tags: list[str] = field("i:t", codec=Json(), factory=list)
        fans: dict[str, str] = map_field("f")
        views: int = counter("i:v")

    # Type checkers see ``address`` as required: they only know a default written in the
    # call, so models write ``default=None``; at run time an Optional field defaults to None.
    user = User(user_id="u1")  # type: ignore[call-arg]

    assert user == User(user_id="u1", nickname="anon", address=None, tags=[], fans={}, views=0)
    assert user.tags is not User(user_id="u2", address=None).tags


def test_a_key_field_cannot_be_reassigned_on_an_instance() -> None:
    """K10: a key is immutable; a new key is a new row."""

    @model(USERS, key=KEY)
    class User:
        user_id: str
        nickname: str = field("i:n")

    user = User(user_id="u1", nickname="bob")
    user.nickname = "robert"

    with pytest.raises(ValidationError, match="K10") as caught:
        user.user_id = "u2"
    assert caught.value.field == "user_id"
    assert user.user_id == "u1"


def test_class_variables_and_key_defaults_are_allowed() -> None:
    @model(USERS, key=Key(Str("user_id"), Int("shard", size=2)))
    class User:
        kind: ClassVar[str] = "user"
        user_id: str
        shard: int = 0
        nickname: str = field("i:n")

    assert User(user_id="u", nickname="n").shard == 0
    assert User.kind == "user"


def test_counters_may_live_in_a_family_with_a_ttl() -> None:
    @model(USERS, key=KEY)
    class Stats:
        user_id: str
        clicks: int = counter("f:c")

    assert model_info(Stats).counters == {"clicks": CounterField("clicks", "f", b"c")}


def test_model_infos_for_lists_the_record_types_of_a_table_in_order() -> None:
    """R1: several models on one table, told apart by a Const tag."""
    table = Table("crm_declaration_test", [Family("d")])

    @model(table, key=Key(Str("customer_id"), Const(b"\x01")))
    class Customer:
        customer_id: str
        name: str = field("d:n")

    @model(table, key=Key(Str("customer_id"), Const(b"\x02"), Str("order_id")))
    class Purchase:
        customer_id: str
        order_id: str
        total: Decimal = field("d:t")

    assert [info.cls for info in model_infos_for(table)] == [Customer, Purchase]
    assert model_infos_for(Table("crm_declaration_test", [Family("d")]))[0].cls is Customer


def test_model_info_of_a_plain_class_is_an_error() -> None:
    class Plain:
        pass

    with pytest.raises(DeclarationError, match="Plain is not a model"):
        model_info(Plain)


# --- invalid declarations: each names the model and the field ---------------------------------


def declare_error(build: Any) -> DeclarationError:
    with pytest.raises(DeclarationError) as caught:
        build()
    assert "model 'Bad'" in caught.value.message
    return caught.value


def test_a_family_not_in_the_table_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            nickname: str = field("x:n")

    error = declare_error(build)
    assert error.field == "nickname"
    assert "family 'x' is not in table 'user' (its families: i, f)" in error.message


@pytest.mark.parametrize("column", ["in", "", ":n", ".i:n", 7])
def test_a_bad_column_string_is_refused(column: Any) -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            nickname: str = field(column)

    assert declare_error(build).field == "nickname"


def test_two_fields_on_one_column_are_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            nickname: str = field("i:n")
            views: int = counter("i:n")

    error = declare_error(build)
    assert error.field == "views"
    assert "already used by field 'nickname'" in error.message


def test_a_column_inside_a_map_prefix_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            dirs: dict[str, str] = map_field("i", prefix="d_")
            name: str = field("i:d_x")

    error = declare_error(build)
    assert error.field == "name"
    assert "inside map field 'dirs'" in error.message


def test_a_column_in_the_family_of_a_map_without_prefix_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            fans: dict[str, str] = map_field("f")
            count: int = counter("f:count")

    assert declare_error(build).field == "count"


@pytest.mark.parametrize(("first", "second"), [("", ""), ("d_", "d_x"), ("", "f_")])
def test_overlapping_maps_are_refused(first: str, second: str) -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            one: dict[str, str] = map_field("f", prefix=first)
            two: dict[str, str] = map_field("f", prefix=second)

    error = declare_error(build)
    assert error.field == "two"
    assert "overlap" in error.message


def test_maps_with_disjoint_prefixes_share_a_family() -> None:
    @model(USERS, key=KEY)
    class Drive:
        user_id: str
        dirs: dict[str, int] = map_field("f", prefix="d_")
        files: dict[str, str] = map_field("f", prefix="f_")

    assert [m.prefix for m in model_info(Drive).maps.values()] == [b"d_", b"f_"]


def test_a_map_given_a_column_instead_of_a_family_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            fans: dict[str, str] = map_field("f:x")

    assert "prefix=" in declare_error(build).message


@pytest.mark.parametrize("hint", [list[str], dict[str, str | None], dict[str, str] | None, dict])
def test_a_map_needs_a_dict_annotation_without_none(hint: Any) -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            fans: hint = map_field("f")

    assert declare_error(build).field == "fans"


def test_an_annotation_without_a_column_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            nickname: str

    error = declare_error(build)
    assert error.field == "nickname"
    assert "field 'nickname' has no column: use field('f:q')" in error.message


def test_a_plain_default_without_a_column_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            nickname: str = "anon"

    assert "has no column" in declare_error(build).message


def test_a_field_without_an_annotation_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            nickname = field("i:n")

    error = declare_error(build)
    assert (error.field, "needs a type annotation" in error.message) == ("nickname", True)


def test_a_key_field_declared_with_a_column_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str = field("i:u")

    assert "lives in the rowkey" in declare_error(build).message


def test_a_key_field_missing_from_the_class_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            nickname: str = field("i:n")

    error = declare_error(build)
    assert error.field == "user_id"
    assert "does not annotate it" in error.message


@pytest.mark.parametrize("hint", [int, str | None, bytes, type("Name", (str,), {})])
def test_a_key_field_of_a_type_its_component_cannot_hold_is_refused(hint: Any) -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: hint

    error = declare_error(build)
    assert error.field == "user_id"
    assert "must be annotated str" in error.message


def test_history_in_a_family_keeping_one_version_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            status: str = field("f:s", history=True)

    error = declare_error(build)
    assert error.field == "status"
    assert "VERSIONS=1 (F7)" in error.message


def test_history_in_a_family_keeping_several_versions_is_allowed() -> None:
    @model(USERS, key=KEY)
    class Order:
        user_id: str
        status: str = field("i:s", history=True)

    assert model_info(Order).columns["status"].history


def test_two_version_fields_are_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            v1: int = version_field("i:v1")
            v2: int = version_field("i:v2")

    assert "at most one version field" in declare_error(build).message


@pytest.mark.parametrize("specifier", [counter, version_field])
def test_counters_and_versions_must_be_annotated_int(specifier: Any) -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            count: str = specifier("i:c")

    assert "annotated int" in declare_error(build).message


def test_a_default_and_a_factory_together_are_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            tags: list[str] = field("i:t", default=[], factory=list)  # type: ignore[call-overload]

    assert "not both" in declare_error(build).message


def test_a_mutable_default_is_refused_in_favour_of_a_factory() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            tags: list[str] = field("i:t", codec=Json(), default=[])

    assert "use factory=" in declare_error(build).message


def test_a_key_default_of_the_wrong_type_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str = 7  # type: ignore[assignment]

    assert declare_error(build).field == "user_id"


def test_a_default_of_none_needs_an_optional_annotation() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            nickname: str = field("i:n", default=None)  # type: ignore[assignment]

    assert "Optional" in declare_error(build).message


def test_a_default_of_the_wrong_type_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            age: int = field("i:a", default="ten")  # type: ignore[assignment]

    error = declare_error(build)
    assert (error.field, error.value) == ("age", "ten")


def test_an_annotation_without_a_default_codec_needs_one() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            ids: set[int] = field("i:s")

    error = declare_error(build)
    assert error.field == "ids"
    assert "pass one explicitly" in error.message


def test_a_codec_for_another_type_than_the_annotation_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            age: int = field("i:a", codec=Utf8())  # type: ignore[assignment]

    error = declare_error(build)
    assert error.field == "age"
    assert "handles str, not int" in error.message


def test_a_codec_that_is_not_a_codec_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            age: int = field("i:a", codec=int)  # type: ignore[call-overload]

    assert "must be a hmodel.codecs.Codec" in declare_error(build).message


def test_an_explicit_codec_for_a_compatible_type_is_accepted() -> None:
    @model(USERS, key=KEY)
    class User:
        user_id: str
        score: int | None = field("i:s", codec=Int32(), default=None)

    assert model_info(User).columns["score"].codec == Int32()


@pytest.mark.parametrize(
    ("ttl", "problem"),
    [
        (60, "datetime.timedelta"),
        (timedelta(0), "positive whole number"),
        (timedelta(microseconds=1500), "positive whole number"),
        (timedelta(hours=2), "exceeds the TTL of family 'f'"),
    ],
)
def test_a_bad_model_ttl_is_refused(ttl: Any, problem: str) -> None:
    def build() -> None:
        @model(USERS, key=KEY, ttl=ttl)
        class Bad:
            user_id: str
            fans: dict[str, str] = map_field("f")

    assert problem in declare_error(build).message


def test_the_table_and_the_key_must_be_declarations() -> None:
    def no_table() -> None:
        @model("user", key=KEY)  # type: ignore[arg-type]
        class Bad:
            user_id: str

    def no_key() -> None:
        @model(USERS, key=("user_id",))  # type: ignore[arg-type]
        class Bad:
            user_id: str

    assert "hmodel.schema.Table" in declare_error(no_table).message
    assert "hmodel.keys.Key" in declare_error(no_key).message


def test_an_annotation_that_does_not_resolve_is_refused() -> None:
    def build() -> None:
        @model(USERS, key=KEY)
        class Bad:
            user_id: str
            nickname: "Nickname" = field("i:n")  # type: ignore[name-defined]  # noqa: F821

    assert "cannot resolve the annotations" in declare_error(build).message


def test_a_model_cannot_subclass_a_model() -> None:
    @model(USERS, key=KEY)
    class User:
        user_id: str
        nickname: str = field("i:n")

    def build() -> None:
        @model(USERS, key=KEY)
        class Bad(User):
            address: str = field("i:a")

    assert "cannot subclass the model 'User'" in declare_error(build).message

"""The node model the taxonomy tests share: the animal taxonomy of HBase schema design (R11)."""

from __future__ import annotations

from hmodel import Family, Key, Str, Table, field, map_field, model

ANIMALS = Table("tx_animal", [Family("n"), Family("p"), Family("c")])


@model(ANIMALS, key=Key(Str("animal_id")))
class Animal:
    """A node of the animal taxonomy: its name, its parents and its children (R11)."""

    animal_id: str
    name: str = field("n:n")
    parents: dict[str, str] = map_field("p")
    children: dict[str, str] = map_field("c")


#: The animal taxonomy of HBase schema design: parent -> children.
TREE = {
    "animal": ["pig", "cat", "monkey", "dog", "tiger"],
    "dog": ["red-dog", "black-dog"],
    "tiger": ["tiger-of-northeast"],
}

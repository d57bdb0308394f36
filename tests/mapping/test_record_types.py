"""Several record types in one table, told apart by a Const tag in the key (R1)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from hmodel.errors import KeyDecodeError
from hmodel.mapping import mapper_for
from hmodel.model import model_infos_for

from .rows import row_after
from .sample import CRM, Customer, CustomerOrder


def test_both_record_types_are_declared_on_the_customer_table() -> None:
    assert [info.cls for info in model_infos_for(CRM)] == [Customer, CustomerOrder]


def test_a_customer_and_its_orders_share_the_customer_prefix() -> None:
    customer = mapper_for(Customer).key_of(customer_id="c1")
    order = mapper_for(CustomerOrder).key_of(customer_id="c1", order_id="o9")

    assert customer == b"c1\x00\x00\x01"
    assert order == b"c1\x00\x00\x02o9\x00\x00"
    assert order.startswith(b"c1\x00\x00")  # one prefix scan returns everything about c1


def test_each_record_type_matches_only_its_own_rows() -> None:
    customer = mapper_for(Customer).key_of(customer_id="c1")
    order = mapper_for(CustomerOrder).key_of(customer_id="c1", order_id="o9")

    assert mapper_for(Customer).matches(customer)
    assert not mapper_for(Customer).matches(order)
    assert mapper_for(CustomerOrder).matches(order)
    assert not mapper_for(CustomerOrder).matches(customer)


def test_each_row_of_a_prefix_scan_decodes_with_the_model_whose_key_matches() -> None:
    saved = [
        Customer(customer_id="c1", name="Ann"),
        CustomerOrder(customer_id="c1", order_id="o9", total=Decimal("3.20")),
    ]
    rows = [row_after(mapper_for(type(item)).to_mutations(item, timestamp=5)) for item in saved]

    loaded = [
        next(
            mapper_for(info.cls).from_row(row)
            for info in model_infos_for(CRM)
            if mapper_for(info.cls).matches(row.row)
        )
        for row in rows
    ]

    assert loaded == saved


def test_decoding_a_row_of_the_other_record_type_fails() -> None:
    item = CustomerOrder(customer_id="c1", order_id="o9", total=Decimal("3.20"))
    row = row_after(mapper_for(CustomerOrder).to_mutations(item, timestamp=5))

    with pytest.raises(KeyDecodeError):
        mapper_for(Customer).from_row(row)

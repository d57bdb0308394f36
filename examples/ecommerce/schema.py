"""The four tables of the e-commerce design: customer, goods, order, customer_order."""

from __future__ import annotations

from hmodel.schema import Family, SaltSplits, Table

__all__ = ["CUSTOMER", "CUSTOMER_ORDER", "GOODS", "ORDER", "REGIONS", "TABLES"]

#: Regions of the pre-split tables. The design asks for 10 regions for ``goods`` and for
#: ``order``; their keys start with a salt of exactly this many buckets (K3, K4), so one
#: region per bucket holds an even share of the rows (K11, S3).
REGIONS = 10

# customer: one family ``c``, GZ-compressed, PREFIX block encoding (F3). Customers are
# read by id only (K1), one row each; the design does not pre-split this table, and it takes
# few writes next to orders, so its key is the plain customer id.
CUSTOMER = Table(
    "customer",
    [Family("c", compression="GZ", data_block_encoding="PREFIX")],
)

# goods: one family ``g`` (F1), GZ, PREFIX, IN_MEMORY (the catalogue is small and read on
# every order) and VERSIONS 10, which keeps the last ten prices of a product as cell
# versions (F3, F7). Pre-split into 10 regions (F4, K11): the key leads with a salt bucket
# computed from the goods id, and SaltSplits puts one bucket in each region.
GOODS = Table(
    "goods",
    [
        Family(
            "g",
            compression="GZ",
            data_block_encoding="PREFIX",
            in_memory=True,
            versions=10,
        )
    ],
    splits=SaltSplits(REGIONS),
)

# order: family ``o`` holds the order itself, family ``c`` a copy of the buyer's attributes
# for buyer analysis (R7). Two families because they are read apart: order processing
# reads ``o``, buyer analysis reads only ``c`` (F1). The design splits it like ``goods``: the
# key leads with a salt bucket of the order id, so the orders of a best-selling product
# still spread over all 10 regions (K3, K8, K11).
ORDER = Table(
    "order",
    [Family("o"), Family("c")],
    splits=SaltSplits(REGIONS),
)

# customer_order: ``[customer][goods][order time]``, one family ``g`` holding just what the
# analysis of one customer's taste needs (F1). The customer leads the key (K1), so
# writes spread over customers and one prefix scan lists a customer's purchases; the design
# does not pre-split it.
CUSTOMER_ORDER = Table("customer_order", [Family("g")])

#: The tables in creation order.
TABLES = (CUSTOMER, GOODS, ORDER, CUSTOMER_ORDER)

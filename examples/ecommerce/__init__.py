"""The e-commerce example: four tables, three questions, on any backend."""

from examples.ecommerce.models import Buyer, Customer, CustomerOrder, Goods, Order
from examples.ecommerce.schema import CUSTOMER, CUSTOMER_ORDER, GOODS, ORDER, TABLES
from examples.ecommerce.service import (
    BuyerProfile,
    OrderRequest,
    ProductSales,
    PurchasedProduct,
    Sales,
    Shop,
)

__all__ = [
    "CUSTOMER",
    "CUSTOMER_ORDER",
    "GOODS",
    "ORDER",
    "TABLES",
    "Buyer",
    "BuyerProfile",
    "Customer",
    "CustomerOrder",
    "Goods",
    "Order",
    "OrderRequest",
    "ProductSales",
    "PurchasedProduct",
    "Sales",
    "Shop",
]

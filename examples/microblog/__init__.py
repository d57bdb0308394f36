"""The microblog example: users with fans and follows, purchases newest first."""

from examples.microblog.models import MUTUAL, ONE_WAY, Purchase, User
from examples.microblog.schema import PURCHASE, TABLES, USER
from examples.microblog.service import Microblog

__all__ = ["MUTUAL", "ONE_WAY", "PURCHASE", "TABLES", "USER", "Microblog", "Purchase", "User"]

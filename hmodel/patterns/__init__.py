"""Schema-design patterns built on repositories (record types, denormalised copies, indexes)."""

"""Worked examples of the design documents: an e-commerce shop and a microblog."""

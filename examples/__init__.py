"""Worked examples of HBase schema design: an e-commerce shop and a microblog."""

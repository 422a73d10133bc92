"""Retrieval: the sentences of a case's sources that bear on one claim, and how they state its values."""

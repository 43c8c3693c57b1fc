"""Anonymization methods: each turns an original table into a :class:`~microanon.Release`."""

"""The workbench's request errors: a one-line message, the field it is about, an HTTP status."""

from __future__ import annotations

from ...core.errors import InputError

__all__ = ["RequestError"]


class RequestError(InputError):
    """A request the workbench refuses; nothing it would have changed is changed.

    Parameters
    ----------
    message : str
        One line naming the column, value or parameter.
    field : str, optional
        The column or parameter the message is about (``null`` in the JSON answer otherwise).
    status : int, default 400
        The HTTP status of the answer.
    """

    def __init__(self, message: str, field: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.status = status

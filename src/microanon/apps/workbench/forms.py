"""Upload forms (``multipart/form-data``) read with the standard library, size-limited.

Starlette parses forms only with the optional ``python-multipart`` package; the workbench reads
the few small forms it takes (a file and some text fields) with :mod:`email`'s MIME parser
instead, after reading the body up to a limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from email import message_from_bytes
from email.policy import HTTP

from starlette.requests import Request

from .errors import RequestError

__all__ = ["FilePart", "read_body", "read_form"]


@dataclass(frozen=True)
class FilePart:
    """An uploaded file: the name the client gave and its bytes."""

    filename: str
    data: bytes


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refusing one above ``limit`` bytes with 413 (before reading it all
    when the client announces its length)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise RequestError(f"upload larger than the limit of {limit:,} bytes", "file", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(f"upload larger than the limit of {limit:,} bytes", "file", 413)
        chunks.append(chunk)
    return b"".join(chunks)


async def read_form(request: Request, limit: int) -> dict[str, str | FilePart]:
    """The fields of a ``multipart/form-data`` request: text, or a :class:`FilePart`.

    Raises
    ------
    RequestError
        Not a multipart form (400), or a body above ``limit`` bytes (413).
    """
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith("multipart/form-data"):
        raise RequestError("send the file as multipart/form-data (field 'file')", "file")
    body = await read_body(request, limit)
    message = message_from_bytes(
        f"Content-Type: {content_type}\r\n\r\n".encode("latin-1") + body, policy=HTTP
    )
    if not message.is_multipart():
        raise RequestError("the form could not be read as multipart/form-data", "file")
    fields: dict[str, str | FilePart] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        data = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is not None:
            fields[str(name)] = FilePart(str(filename), data)
        else:
            fields[str(name)] = data.decode("utf-8", errors="replace")
    return fields

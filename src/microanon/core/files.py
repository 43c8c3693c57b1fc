"""Reading a small text file that a user names: a hierarchy file, an anonymizer file, a
configuration (YAML).

A name in a configuration or a saved file can point anywhere: at ``/dev/zero`` (endless), a FIFO
(a read that waits for a writer), a directory, or a huge file. :func:`read_text_file` opens the
name without waiting, refuses anything but a regular file of at most :data:`MAX_FILE_BYTES`
before reading a byte, and its messages name the file, never its content.
:func:`read_yaml_file` reads a YAML document so, and refuses a key given twice in a mapping
(YAML forbids it; PyYAML would keep the last silently).
"""

from __future__ import annotations

import functools
import os
import stat
from typing import Any

from .errors import InputError

__all__ = ["MAX_FILE_BYTES", "read_text_file", "read_yaml_file"]

#: The largest hierarchy or anonymizer file read (64 MiB): a hierarchy of every US ZIP code
#: takes about 2 MB, and 64 MiB of text is read and parsed in seconds.
MAX_FILE_BYTES = 64 * 2**20


def read_text_file(
    path: str | os.PathLike[str], what: str, error: type[InputError] = InputError
) -> str:
    """The UTF-8 text of a regular file of at most :data:`MAX_FILE_BYTES`.

    Parameters
    ----------
    path : path
        The file.
    what : str
        What the file is, for messages (``"hierarchy file"``).
    error : type, default InputError
        The error raised (a subclass of :class:`InputError`).

    Returns
    -------
    str

    Raises
    ------
    InputError
        (or ``error``) The file cannot be opened, is not a regular file (a device such as
        ``/dev/zero``, a FIFO, a socket, a directory), holds more than :data:`MAX_FILE_BYTES`, or
        is not UTF-8 text. The message names the file and never quotes it.
    """
    # O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below).
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror}") from None
    too_large = error(f"{what} {path} is larger than {MAX_FILE_BYTES // 2**20} MiB")
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise error(f"{what} {path} is not a regular file")
        if status.st_size > MAX_FILE_BYTES:
            raise too_large
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:  # it grew since
        raise too_large
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text (byte {exc.start + 1})") from None


def read_yaml_file(
    path: str | os.PathLike[str], what: str, error: type[InputError] = InputError
) -> Any:
    """The YAML document of a file read by :func:`read_text_file` (safe types only).

    Parameters
    ----------
    path : path
        The file.
    what : str
        What the file is, for messages (``"config"``).
    error : type, default InputError
        The error raised (a subclass of :class:`InputError`).

    Returns
    -------
    object
        The document: a mapping, a list, a scalar, or ``None`` for an empty file.

    Raises
    ------
    InputError
        (or ``error``) What :func:`read_text_file` refuses, text that is not YAML, or a key
        given twice in one mapping; one line naming the file and the line at fault.
    """
    import yaml

    text = read_text_file(path, what, error)
    try:
        return yaml.load(text, Loader=_unique_key_loader())  # a SafeLoader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = "; ".join(str(p) for p in (exc.context, exc.problem) if p)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise error(f"{what} {path} is not valid YAML: {problem}{where}") from None
    except yaml.YAMLError as exc:
        raise error(f"{what} {path} is not valid YAML: {exc}") from None


@functools.cache
def _unique_key_loader() -> type:
    """PyYAML's ``SafeLoader``, refusing a key given twice in one mapping."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                try:
                    repeated = key in seen
                except TypeError:  # an unhashable key: SafeLoader refuses it itself
                    break
                if repeated:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {key!r} is given twice", key_node.start_mark
                    )
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader

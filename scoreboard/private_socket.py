"""A unix socket only its owner can use, at a path: the simulator's control socket and the
simulated table's (``run --control``) both listen so."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

__all__ = ["listen_private", "remove_if_ours"]


def listen_private(path: Path, error: Callable[[str], Exception]) -> tuple[socket.socket, int]:
    """Listen on ``path``, mode 0600 from the start where the system allows (a stale socket
    file there is replaced; anything else is refused); the socket (non-blocking) and the
    inode of its file. ``error(message)`` is raised when the path cannot be used."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        pass
    except OSError as e:
        raise error(f"cannot use {path} for the control socket: {e.strerror}") from None
    else:
        if not stat.S_ISSOCK(mode):
            raise error(f"{path} exists and is not a socket: not replacing it")
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:  # Linux takes the mode of the socket's inode: nobody else connects before the chmod
            os.fchmod(sock.fileno(), 0o600)
        except OSError:
            pass
        sock.bind(str(path))
        os.chmod(path, 0o600)
        sock.listen(8)
    except OSError as e:
        sock.close()
        raise error(f"cannot listen on {path}: {e.strerror or e}") from None
    sock.setblocking(False)
    return sock, path.lstat().st_ino


def remove_if_ours(path: Path, inode: int) -> None:
    """Remove the socket file at ``path`` if it is still the one of ``inode`` (not a newer
    listener's)."""
    try:
        st = path.lstat()
        if stat.S_ISSOCK(st.st_mode) and st.st_ino == inode:
            path.unlink()
    except OSError:
        pass

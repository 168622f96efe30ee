"""Where the board link is, for the commands that open it (``enroll``, ``board selftest``).

``--link PATH`` first, else ``board.link`` of the configuration, else the first
``/dev/serial/by-id`` entry matching ``board.pattern``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.errors import ScoreboardError

if TYPE_CHECKING:
    from .config import Config

__all__ = ["NoBoardLinkError", "link_path"]


class NoBoardLinkError(ScoreboardError, ValueError):
    """No board link path given (``--link``) nor configured, and no port found."""


def link_path(link: str | None, config: Config) -> str:
    """``link``, else ``board.link``, else the first by-id port matching ``board.pattern``."""
    if link:
        return str(link)
    if config.board.link:
        return config.board.link
    from drivers.board.serial_link import BoardNotFoundError, find_port

    try:
        return find_port(None, config.board.pattern)
    except BoardNotFoundError as e:
        raise NoBoardLinkError(f"no board link ({e}): pass --link PATH or set board.link") from None

"""``scoreboard play``: the table in the browser, on simulated hardware, through the real service.

Starts the simulated board (its own process), the service on it (``scoreboard run
--simulate``, its own process) and the web server (:mod:`scoreboard.play.web`); prints the
page's address and opens it in a browser where there is one (a desktop). ``--watch`` plays
the demo's scripted game (:func:`scoreboard.demo.demo_script`) on the same table instead,
live, hands off. The web server listens on 127.0.0.1; another address (``--host``) needs a
token (``--token`` or ``$SCOREBOARD_PLAY_TOKEN``, at least 16 characters), which the page's
address carries. Every session has its own journal (``--state DIR``, default a new folder
under ``STATE/play/``), so that ``scoreboard export --format gcg --set paths.state_dir=DIR/state``
finds its game.
Ctrl-C (or SIGTERM) stops all three.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import os
import random
import secrets
import shlex
import signal
import socket
import sys
import time
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from engine.errors import ScoreboardError
from scoreboard.config import Config, ConfigError, load_config, state_dir

__all__ = ["MIN_TOKEN", "PlayError", "address", "check_binding", "cmd_play", "main"]

log = logging.getLogger(__name__)

MIN_TOKEN = 16
"""Characters a token must have at least."""
TOKEN_ENV = "SCOREBOARD_PLAY_TOKEN"


class PlayError(ScoreboardError, ValueError):
    """Arguments ``scoreboard play`` cannot start with (an address without a token ...)."""


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_binding(host: str, token: str | None) -> None:
    """Raise :class:`PlayError` unless ``host`` may be listened on with ``token``: any
    address beyond this machine needs a token of :data:`MIN_TOKEN` characters or more."""
    if token is not None and len(token) < MIN_TOKEN:
        raise PlayError(f"a token of at least {MIN_TOKEN} characters, not {len(token)} (e.g. {secrets.token_urlsafe(16)})")
    if not is_loopback(host) and token is None:
        raise PlayError(
            f"--host {host} opens the table to the network: give it a token too (--token, or ${TOKEN_ENV}; e.g."
            f" {secrets.token_urlsafe(16)}), which the page's address then carries")


def address(sock: socket.socket, token: str | None) -> str:
    """The page's address for a listening socket."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def _overrides(args: argparse.Namespace) -> list[str]:
    """The ``--set`` overrides of the command line, ``--rules`` and ``--players`` among them
    (``--watch`` without ``--players``: the demo's Anna and Ben)."""
    overrides = list(args.set)
    if args.rules:
        overrides.append(f"game.rules={args.rules}")
    if args.players is not None:
        names = [n.strip() for n in args.players.split(",") if n.strip()]
        overrides.append(players_override(names))
    elif args.watch:
        from scoreboard.demo import DEMO_PLAYERS

        overrides.append(players_override(DEMO_PLAYERS))
    return overrides


def players_override(names: Sequence[str]) -> str:
    """``game.players=[...]`` with each name a TOML string as it is (quotes and backslashes kept)."""
    return "game.players=[" + ", ".join(json.dumps(n, ensure_ascii=False) for n in names) + "]"


def _players_error(e: ConfigError, args: argparse.Namespace) -> ScoreboardError:
    """A refusal of ``game.players`` that came from ``--players``, said of ``--players``."""
    if args.players is not None and e.key == "game.players":
        return PlayError(f"--players {args.players!r}: {e.message}")
    return e


def cmd_play(args: argparse.Namespace) -> int:
    """``scoreboard play``; exit 0 when stopped, 2 when it cannot start."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        print(f"scoreboard: `scoreboard play` needs the web server: {e}; pip install 'scoreboard[play]'", file=sys.stderr)
        return 2
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV) or None
    try:
        check_binding(args.host, token)
        overrides = _overrides(args)
        try:
            config = load_config(args.config, overrides)
        except ConfigError as e:
            raise _players_error(e, args) from None
        if args.watch and (len(config.player_names()) != 2):
            raise PlayError("--watch plays the demo's game of two players; leave out --players or name two")
        session = Path(args.state) if args.state else state_dir(config) / "play" / time.strftime("%Y%m%d-%H%M%S")
        earlier = (session / "state").is_dir() and any((session / "state").iterdir())
        session.mkdir(parents=True, exist_ok=True)
        sock = socket.create_server((args.host, args.port), family=socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    except (ScoreboardError, OSError, OverflowError) as e:  # (OverflowError: a port beyond 65535 from a config)
        print(f"scoreboard: {e}", file=sys.stderr)
        return 2
    url = address(sock, token)
    print(f"the table: {url}", flush=True)
    journal = (session / "state").resolve()
    print(f"its journal: {journal} (scoreboard export --format gcg --set {shlex.quote(f'paths.state_dir={journal}')})",
          flush=True)
    try:
        if earlier:
            print("an earlier session's journal: its game resumes" + (
                ", its tiles laid back where they were" if not args.bare_table else
                " on a bare table (--bare-table): lay the tiles back as the service asks"), flush=True)
        return asyncio.run(_serve(args, config, overrides, session, sock, token, url, earlier and not args.bare_table))
    except KeyboardInterrupt:
        return 0


async def _serve(args: argparse.Namespace, config: Config, overrides: list[str], session: Path, sock: socket.socket,
                 token: str | None, url: str, lay_back: bool = False) -> int:
    from firmware import frames as F
    from firmware.scanner import row_layout
    from scoreboard.play.stack import StackSettings, TableStack
    from scoreboard.play.table import PhysicalTable
    from scoreboard.play.web import Hub, Server, TableInfo, allowed_hosts, make_app

    profile = config.rule_profile()
    names = config.player_names()
    script = _watch_script(config, session) if args.watch else None
    settings = StackSettings(session / "state", session / "out", overrides, args.config, racks=len(names),
                             slots=profile.rack_size, script=script)
    stack = TableStack(settings)
    try:
        sim = stack.start_board()
    except ScoreboardError as e:
        stack.close_board()
        print(f"scoreboard: the simulated board did not start: {e}", file=sys.stderr)
        return 2
    layout = row_layout(len(names), profile.rack_size)
    readers = tuple((i, tuple(str(F.loc_name(loc)) for loc in locs)) for i, locs in enumerate(layout.readers))
    panel = config.display.chosen_panel()
    info = TableInfo(profile.name, config.language(), tuple(names), panel.size, bool(config.display.seat_channels),
                     readers, watch=bool(args.watch), token=token, long_s=config.buttons.long_ms / 1000,
                     hosts=allowed_hosts(args.host, args.allow_host))
    table = PhysicalTable(profile.tile_set, len(names), profile.rack_size, random.Random(args.seed))
    hub = Hub(info, table, stack, sim)
    hub.lay_back_at_start = lay_back
    stack.on_service = hub.on_service
    server = Server(make_app(lambda: hub, info))
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):  # a stop ends all three, cleanly: exit status 0
        loop.add_signal_handler(signum, server.stop)
    follower = asyncio.get_running_loop().create_task(hub.follow_service())
    try:
        await hub.refresh_tags()
        await stack.start_service()
        if not args.no_browser:
            asyncio.get_running_loop().call_later(0.5, _open_browser, url)
        await server.serve(sockets=[sock])
    finally:
        follower.cancel()
        await hub.close()
        hub.sim.close()  # (the hub may have connected again)
        await stack.close()
    return 0


def _watch_script(config: Config, session: Path) -> Path:
    """The demo's scripted game for ``--watch``, written into the session's folder."""
    from scoreboard.demo import demo_script
    from scoreboard.lexicons import open_lexicon

    profile = config.rule_profile()
    text, _ = demo_script(profile.name, config.player_names(), open_lexicon(profile.tile_set.language))
    path = session / "script.txt"
    path.write_text(text, encoding="utf-8")
    return path


def _open_browser(url: str) -> None:
    """Open ``url`` in the desktop's browser; without a desktop say so (a console browser
    would take over the terminal)."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("no desktop here: open the address above in a browser", flush=True)
        return
    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        print("no browser found: open the address above in one", flush=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m scoreboard.play.cli ...`` (the same as ``scoreboard play``)."""
    from scoreboard.cli import main as scoreboard

    return scoreboard(["play", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())

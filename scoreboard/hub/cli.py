"""``scoreboard hub`` (the venue hub) and ``scoreboard hub setup`` (the broker's files).

The hub reads ``[hub]`` of the configuration: the broker and the hub's credentials, the
event, where the games are kept, where the pages are served, the broadcast delay and when
racks are shown. SIGTERM or Ctrl-C stops it; under systemd it reports READY.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys
from pathlib import Path

from engine.errors import ScoreboardError
from scoreboard.config import HubConfig

__all__ = ["cmd_hub", "cmd_hub_setup"]

log = logging.getLogger(__name__)


def cmd_hub_setup(args: argparse.Namespace) -> int:
    from .setup import Setup, SetupError, table_names, write_setup

    try:
        tables = table_names(args.tables, args.count)
        tls = (args.tls_cert, args.tls_key, args.tls_ca)
        port = args.port or (8883 if any(tls) else 1883)
        setup = Setup(
            args.event, tables, Path(args.out), broker_host=args.broker_host, listen=args.listen, port=port,
            prefix=args.prefix, tls_cert=Path(args.tls_cert).resolve() if args.tls_cert else None,
            tls_key=Path(args.tls_key).resolve() if args.tls_key else None,
            tls_ca=Path(args.tls_ca).resolve() if args.tls_ca else None,
            persistence=Path(args.persistence_dir).resolve() if args.persistence_dir else None,
        )
        write_setup(setup, where=Path(args.conf_dir) if args.conf_dir else None, force=args.force)
    except SetupError as e:
        print(f"scoreboard hub setup: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"scoreboard hub setup: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    out = Path(args.out)
    print(f"wrote the broker's setup for {args.event} ({len(tables)} tables) into {out}:")
    print(f"  {out / 'mosquitto.conf'}   the broker (port {port}{', TLS' if args.tls_cert else ''})")
    print(f"  {out / 'passwd'}, {out / 'acl'}   a user per table and the hub; each board publishes only its own topics")
    print(f"  {out / 'boards'}/TABLE.toml   each board's [broadcast] section (secret: copy it to that board)")
    print(f"  {out / 'hub.toml'}   the hub's [hub] section (with the event's tables)")
    return 0


def cmd_hub(args: argparse.Namespace) -> int:
    if getattr(args, "hub_command", None) == "setup":  # (argparse routes it there; kept for safety)
        return cmd_hub_setup(args)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        import uvicorn  # noqa: F401
    except ImportError as e:
        print(f"scoreboard hub: the hub needs the web server: {e}; pip install 'scoreboard[play]'", file=sys.stderr)
        return 2
    from scoreboard.config import load_config, state_dir

    try:
        config = load_config(args.config, args.set)
        hub_config = config.hub
        folder = Path(hub_config.data_dir).expanduser() if hub_config.data_dir else state_dir(config) / "hub"
        host = hub_config.listen_host or "127.0.0.1"
        sock = socket.create_server((host, hub_config.listen_port),
                                    family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except (ScoreboardError, OSError) as e:
        print(f"scoreboard hub: {e}", file=sys.stderr)
        return 2
    return asyncio.run(_serve(config.hub, folder, sock))


async def _serve(config: HubConfig, folder: Path, sock: socket.socket) -> int:
    from scoreboard.broadcast.messages import Topics
    from scoreboard.notify import ServiceNotifier
    from scoreboard.play.web import Server

    from .core import Hub
    from .ingest import Ingest
    from .web import Pusher, make_app

    hub = Hub(Topics(config.topic_prefix, config.event), folder, delay=config.delay_s, racks=config.racks,
              tables=config.tables)
    pusher = Pusher(hub)
    pusher.loop = asyncio.get_running_loop()
    from scoreboard.broadcast.publisher import TlsSetupError

    try:
        ingest = Ingest(hub, config, pusher.changed)
    except TlsSetupError as e:  # (a hub without its broker has nothing to show)
        print(f"scoreboard hub: {e}", file=sys.stderr)
        hub.close()
        sock.close()
        return 2
    server = Server(make_app(pusher))
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, server.stop)
    ingest.start()
    host, port = sock.getsockname()[:2]
    print(f"hub of {config.event}: http://{host}:{port}/ (broker {config.host}:{config.port}, delay {config.delay_s} s,"
          f" games in {hub.folder})", flush=True)
    notifier = ServiceNotifier()
    notifier.ready(f"hub of {config.event}")
    try:
        await server.serve(sockets=[sock])
    finally:
        notifier.stopping()
        ingest.stop()
        hub.close()
    return 0

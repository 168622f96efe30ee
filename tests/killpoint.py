"""The service (``scoreboard.run_cli``) with a kill point: it SIGKILLs itself at a chosen moment.

``python tests/killpoint.py RUN_ARGS...`` runs ``scoreboard.run_cli.main(RUN_ARGS)`` after
patching, in this process only (production code is not changed), the moment named by the
environment variable ``SOAK_KILL`` (``KIND:N``):

``txn:N``
    inside the journal's N-th transaction of this process: its rows are written, it is
    not committed yet (the connection's ``commit`` kills before committing);
``commit:N``
    right after the N-th commit: the records are in the journal, nothing that follows
    them has been shown yet (between a record's commit and its screen);
``screen:N``
    just before the N-th screen (``Service._put``): what a step shows is cut short;
``line:N``
    when the script is about to carry out its line N (the soak uses it to get past a part
    of the script before the random kills begin).

Without ``SOAK_KILL`` nothing is patched in (the kill then comes from outside, at a random
moment). ``SOAK_LINE_FILE``: a file that always holds the number of the script line being
carried out, so that whoever reads it after the kill knows where the script stood.

``python tests/killpoint.py --serve`` is a fork server for the soak (``tests/soakharness.py``):
it imports the service once, then forks one child per request, so that a restart costs the
service's own start (journal, devices, resume) and not the interpreter's and the imports'.
Requests are JSON lines on stdin (``{"argv": [...], "env": {...}, "stderr": PATH}``, or
``{"kill": PID}``: SIGKILL a child that has not ended); it answers ``started PID`` and, when
a child ends, ``exit PID STATUS`` (a negative status: killed by that signal). A child is a fresh service in every other respect: nothing but the
imports was done before the fork (no thread, no file, no journal open).
"""

from __future__ import annotations

import json
import os
import select
import signal
import sqlite3
import sys
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

KINDS = ("txn", "commit", "screen", "line")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def install(spec: str | None, line_file: str | None) -> None:
    """Patch in the kill point ``spec`` (``KIND:N``) and the line file (see the module doc)."""
    from scoreboard import journal
    from scoreboard.scripted import ScriptPlayer
    from scoreboard.service import Service

    kind, _, count = (spec or "").partition(":")
    if spec and (kind not in KINDS or not count.isdigit() or int(count) < 1):
        raise SystemExit(f"killpoint: SOAK_KILL={spec!r}: KIND:N with KIND one of {', '.join(KINDS)}")
    n = int(count) if spec else 0
    if line_file or kind == "line":
        fd = os.open(line_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) if line_file else None
        do = ScriptPlayer._do

        def _do(self: ScriptPlayer, line: Any) -> None:
            if fd is not None:
                os.pwrite(fd, f"{line.number:8d}\n".encode(), 0)
            if kind == "line" and line.number >= n:
                _die()
            do(self, line)

        ScriptPlayer._do = _do  # type: ignore[method-assign]
    if not spec or kind == "line":
        return
    calls = [0]
    if kind in ("txn", "commit"):
        before = kind == "txn"

        class KillConnection(sqlite3.Connection):
            def commit(self) -> None:
                calls[0] += 1
                if before and calls[0] == n:
                    _die()
                super().commit()
                if not before and calls[0] == n:
                    _die()

        connect = journal._connect

        def _connect(db: Path, factory: Any) -> sqlite3.Connection:
            return connect(db, KillConnection if factory is sqlite3.Connection else factory)

        journal._connect = _connect  # type: ignore[assignment]
    else:
        put = Service._put

        def _put(self: Service, screen: Any, seat: int | None) -> None:
            if (seat is None) != self.seat_panels:  # a screen this table shows
                calls[0] += 1
                if calls[0] == n:
                    _die()
            put(self, screen, seat)

        Service._put = _put  # type: ignore[method-assign]


def run(argv: list[str]) -> int:
    """The service with the kill point of the environment."""
    install(os.environ.get("SOAK_KILL"), os.environ.get("SOAK_LINE_FILE"))
    from scoreboard.run_cli import main

    return main(argv)


# --- the fork server ------------------------------------------------------------------------


def _preload() -> None:
    """Everything a run imports, also lazily (so that no child pays for it)."""
    import gpiozero.pins.mock  # noqa: F401
    import PIL.GifImagePlugin
    import PIL.Image
    import PIL.PngImagePlugin  # noqa: F401

    import drivers.display.capture  # noqa: F401
    import scoreboard.cli

    # what scoreboard.run_cli loads once its starting frame is shown
    import scoreboard.config
    import scoreboard.demo
    import scoreboard.export_cli
    import scoreboard.hardware
    import scoreboard.journal
    import scoreboard.run_cli
    import scoreboard.runner
    import scoreboard.scripted
    import scoreboard.service
    import scoreboard.sim.client
    import scoreboard.table_script  # noqa: F401


def _child(request: dict[str, Any]) -> None:
    code = 1
    try:
        null = os.open(os.devnull, os.O_RDWR)
        log = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(log, 2)
        os.environ.update(request.get("env", {}))
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        code = run(list(request["argv"]))
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 - the child's traceback goes to its log, its exit code is 1
        traceback.print_exc()
    finally:
        try:
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve() -> int:
    """The fork server's loop (see the module doc)."""
    _preload()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness stops it by closing stdin
    out = sys.stdout.fileno()
    pending = b""
    children: set[int] = set()

    def say(text: str) -> None:
        os.write(out, (text + "\n").encode())

    say("ready")
    open_input = True
    while open_input or children:
        readable, _, _ = select.select([0] if open_input else [], [], [], 0.005)
        if readable:
            chunk = os.read(0, 65536)
            if not chunk:
                open_input = False
                for pid in children:  # the harness went away: so do its services
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            pending += chunk
            while b"\n" in pending:
                raw, pending = pending.split(b"\n", 1)
                if not raw.strip():
                    continue
                request = json.loads(raw)
                if "kill" in request:  # only a child not yet reaped: its pid cannot be another's
                    if request["kill"] in children:
                        os.kill(request["kill"], signal.SIGKILL)
                    continue
                pid = os.fork()
                if pid == 0:
                    _child(request)
                children.add(pid)
                say(f"started {pid}")
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                children.clear()
                break
            if pid == 0:
                break
            children.discard(pid)
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            say(f"exit {pid} {code}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        sys.exit(serve())
    sys.exit(run(sys.argv[1:]))

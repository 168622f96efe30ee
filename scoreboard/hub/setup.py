"""``scoreboard hub setup``: the venue broker's configuration, its users, its ACL and every board's credentials.

Writes into ``OUT``: ``mosquitto.conf`` (nothing anonymous; the password file and the ACL;
a plain listener, or a TLS one with the given certificate; made to be included by Debian's
``/etc/mosquitto/mosquitto.conf`` from ``conf.d``, which already keeps the broker's messages
on disk, or, with a persistence folder, to run a broker of its own), ``passwd`` (one user per table
and the hub's, hashed as Mosquitto 2 hashes them: PBKDF2-SHA512), ``acl`` (a board may publish
only its own topics and read only its resend topic; the hub reads everything of the event
and writes the resend topics), ``boards/TABLE.toml`` (the ``[broadcast]`` section for each
table's config) and ``hub.toml`` (the ``[hub]`` section, with the event's tables). Secrets are files of mode 0600.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from engine.errors import ScoreboardError

__all__ = ["HUB_USER", "Setup", "SetupError", "password_hash", "write_setup"]

HUB_USER = "hub"
ITERATIONS = 1000  # PBKDF2 rounds of a password hash (Mosquitto's own tool uses 101)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")


class SetupError(ScoreboardError, ValueError):
    """Arguments that make no broker setup (``what`` names the argument, ``value`` the bad value)."""

    def __init__(self, what: str, value: object, message: str) -> None:
        self.what, self.value = what, value
        super().__init__(f"{what}: {message}")


@dataclass(frozen=True)
class Setup:
    """What to write: the event, its tables, where the broker listens and how."""

    event: str
    tables: tuple[str, ...]
    out: Path
    broker_host: str = "127.0.0.1"  # how boards and hub reach the broker
    listen: str = ""  # the address the broker binds ("" = every interface)
    port: int = 1883
    prefix: str = "scoreboard"
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_ca: Path | None = None
    persistence: Path | None = None  # a broker of its own keeps its messages here (Debian's main file already does)
    run_as: str = ""  # the user Mosquitto runs as when started as root ("" = its own, "mosquitto")

    def check(self) -> None:
        for what, name in (("--event", self.event), ("--prefix", self.prefix)):
            if not NAME.fullmatch(name):
                raise SetupError(what, name, "1 to 32 letters, digits, - and _, starting with a letter or digit")
        if not self.tables:
            raise SetupError("--tables", "", "name at least one table")
        for table in self.tables:
            if not NAME.fullmatch(table):
                raise SetupError("--tables", table, "a table is 1 to 32 letters, digits, - and _")
            if table == HUB_USER:
                raise SetupError("--tables", table, f"{HUB_USER!r} is the hub's user")
        if len(set(self.tables)) != len(self.tables):
            raise SetupError("--tables", ",".join(self.tables), "a table is named twice")
        tls = (self.tls_cert, self.tls_key, self.tls_ca)
        if any(tls) and not all(tls):
            raise SetupError("--tls-cert", self.tls_cert, "TLS needs --tls-cert, --tls-key and --tls-ca together")
        if not 1 <= self.port <= 65535:
            raise SetupError("--port", self.port, "1 to 65535")


def password_hash(password: str, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """A Mosquitto 2 password-file hash: ``$7$ROUNDS$SALT$HASH`` (PBKDF2-HMAC-SHA512, base64)."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def acl_text(setup: Setup) -> str:
    base = f"{setup.prefix}/{setup.event}"
    lines = [
        f"# written by scoreboard hub setup for {setup.event}: a board publishes only its own topics",
        f"user {HUB_USER}",
        f"topic read {base}/#",
        f"topic write {base}/+/resend",
        "",
    ]
    for table in setup.tables:
        lines += [f"user {table}"]
        lines += [f"topic write {base}/{table}/{what}" for what in ("records", "state", "status")]
        lines += [f"topic read {base}/{table}/resend", ""]
    return "\n".join(lines)


def broker_conf(setup: Setup, where: Path) -> str:
    """``mosquitto.conf``; ``where`` is the folder the files will be read from."""
    lines = [
        f"# written by scoreboard hub setup for the event {setup.event}",
        "per_listener_settings false",
        *([f"user {setup.run_as}"] if setup.run_as else []),
        "allow_anonymous false",
        f"password_file {where / 'passwd'}",
        f"acl_file {where / 'acl'}",
        f"listener {setup.port}{' ' + setup.listen if setup.listen else ''}",
        "use_username_as_clientid true  # a client is its user: no one takes over another's session",
    ]
    if setup.tls_cert is not None:
        lines += [
            f"certfile {setup.tls_cert}",
            f"keyfile {setup.tls_key}",
            f"cafile {setup.tls_ca}",
            "tls_version tlsv1.2",
        ]
    lines += [
        "# the records kept for the hub while it restarts (its session is kept; it takes no state queued)",
        f"max_queued_messages {queued_messages(len(setup.tables))}",
        f"max_queued_bytes {queued_bytes(len(setup.tables))}",
        "max_inflight_messages 32",
        "connection_messages true",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        "log_type notice",
    ]
    if setup.persistence is not None:
        lines += ["persistence true", f"persistence_location {setup.persistence}/", "autosave_interval 30"]
    return "\n".join(lines) + "\n"


def queued_messages(tables: int) -> int:
    """How many messages the broker keeps for a hub away: an hour of records, twice over (a
    game is about 200 records, a table plays two an hour), at least 100,000."""
    return max(100_000, 800 * tables)


def queued_bytes(tables: int) -> int:
    """How many bytes: as many records of 400 bytes (most are 150 to 450), at least 64 MiB
    (200 tables). The states, a few KB each once a second, are not queued (QoS 0 for the hub)."""
    return max(64 << 20, tables * 800 * 400)


def _secret_file(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def write_setup(setup: Setup, *, where: Path | None = None, force: bool = False) -> dict[str, str]:
    """Write the files; returns each user's password. ``where``: the folder the broker will read
    them from (default ``setup.out``). An existing setup is kept unless ``force``."""
    setup.check()
    out = setup.out
    if (out / "passwd").exists() and not force:
        raise SetupError("--out", str(out), "holds a setup already (its passwords are in use); --force writes anew")
    where = where if where is not None else out.resolve()
    (out / "boards").mkdir(parents=True, exist_ok=True)
    if setup.persistence is not None:
        setup.persistence.mkdir(parents=True, exist_ok=True)
    passwords = {user: secrets.token_urlsafe(18) for user in (HUB_USER, *setup.tables)}
    _secret_file(out / "passwd", "".join(f"{u}:{password_hash(p)}\n" for u, p in passwords.items()))
    (out / "acl").write_text(acl_text(setup), encoding="utf-8")
    (out / "mosquitto.conf").write_text(broker_conf(setup, where), encoding="utf-8")
    tls = {"tls_ca": str(setup.tls_ca)} if setup.tls_ca is not None else {}
    common = {"host": setup.broker_host, "port": setup.port, "event": setup.event, "topic_prefix": setup.prefix}
    for table in setup.tables:
        section = {"enabled": True, **common, "table": table, "username": table, "password": passwords[table], **tls}
        _secret_file(out / "boards" / f"{table}.toml", _toml("broadcast", section, table))
    hub = {**common, "username": HUB_USER, "password": passwords[HUB_USER], **tls, "tables": list(setup.tables)}
    _secret_file(out / "hub.toml", _toml("hub", hub, "the hub"))
    return passwords


def _toml(section: str, values: Mapping[str, object], who: str) -> str:
    head = f"# {who}'s [{section}] section, written by scoreboard hub setup: put it in {who}'s configuration\n"
    return head + tomli_w.dumps({section: values})


def table_names(tables: str | None, count: int | None, stem: str = "table-") -> tuple[str, ...]:
    """``--tables a,b,c`` or ``--count N`` (``table-01`` ... ``table-N``)."""
    if tables:
        return tuple(t.strip() for t in tables.split(",") if t.strip())
    if count is None or not 1 <= count <= 1000:
        raise SetupError("--count", count, "give --tables NAMES or --count 1 to 1000")
    width = max(2, len(str(count)))
    return tuple(f"{stem}{n:0{width}d}" for n in range(1, count + 1))


def describe(setup: Setup, written: Sequence[str]) -> str:
    return (
        f"wrote the broker's setup for {setup.event} ({len(setup.tables)} tables) into {setup.out}: "
        + ", ".join(written)
    )

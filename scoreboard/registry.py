"""The tile registry: which letter each physical tile (tag UID) carries, per tile set.

Filled by the guided enrollment (:mod:`scoreboard.enrollment`, ``scoreboard enroll``) and
kept as one JSON file per tile set in the state directory (``tiles/german.json``)::

    {"format": 1, "tile_set": "german",
     "tiles": {"?": ["04A1B2C3D4E5F6", ...], "A": [...], ...}}

A UID belongs to at most one letter. A UID the registry does not know gives ``None``: the
scoreboard shows it as an unknown tile and never guesses.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from engine.errors import ScoreboardError, UnknownTileSetError
from engine.tiles import BLANK, TILE_SETS, Tile, TileSet, get_tile_set
from scoreboard.storage import write_json_atomic

FORMAT = 1
UID_LENGTHS = (4, 7, 10)
CASCADE_TAG = 0x88
SET_KEYS = {ts.language: ts.name for ts in TILE_SETS.values()}
"""The short key of each tile set as ``scoreboard enroll --set`` takes it: ``de`` → ``german``."""


class BadUidError(ScoreboardError, ValueError):
    """Bytes that are not a tag UID (wrong length, or a reader's cascade tag)."""


class UidConflictError(ScoreboardError, ValueError):
    """A UID given a letter while it is registered under another one."""

    def __init__(self, uid: bytes, registered: str, wanted: str) -> None:
        self.uid = uid
        self.registered = registered
        self.wanted = wanted
        super().__init__(
            f"tile {uid.hex().upper()} is already {letter_name(registered)}, "
            f"it cannot also be {letter_name(wanted)}"
        )


class CorruptRegistryError(ScoreboardError, ValueError):
    """A registry file whose content cannot be read; it is left as it is."""


class RegistryIOError(ScoreboardError, OSError):
    """A registry file that cannot be read or written (permissions, disk full)."""


class IncompleteRegistryError(ScoreboardError, ValueError):
    """A registry whose letter counts differ from the tile set's; lists what is wrong."""

    def __init__(self, set_name: str, missing: Mapping[str, int], extra: Mapping[str, int]) -> None:
        self.set_name = set_name
        self.missing = dict(missing)
        self.extra = dict(extra)
        parts = []
        if self.missing:
            parts.append("missing " + _counted(self.missing))
        if self.extra:
            parts.append("too many " + _counted(self.extra))
        super().__init__(f"the {set_name} tile registry is incomplete: {'; '.join(parts)}")


def letter_name(letter: str) -> str:
    """A letter as messages name it: ``'blank'`` for ``?``, else the letter."""
    return "blank" if letter == BLANK else letter


def _counted(counts: Mapping[str, int]) -> str:
    return ", ".join(
        f"{n} {'blank' + ('s' if n != 1 else '') if letter == BLANK else letter}"
        for letter, n in counts.items()
    )


def set_key(tile_set: TileSet) -> str:
    """The short key of ``tile_set`` (``german`` → ``de``), as ``scoreboard enroll --set`` takes it."""
    return next((k for k, v in SET_KEYS.items() if v == tile_set.name), tile_set.name)


def resolve_tile_set(name: str) -> TileSet:
    """The tile set called ``name``: its key (``de``, ``fr``, ``en``) or its name (``german``)."""
    key = name.lower()
    try:
        return get_tile_set(SET_KEYS.get(key, key))
    except UnknownTileSetError:
        known = ", ".join(f"{k} ({v})" for k, v in SET_KEYS.items())
        raise UnknownTileSetError(f"unknown tile set {name!r}; known: {known}") from None


def check_uid(uid: bytes) -> bytes:
    """``uid`` if it is a tag UID (4, 7 or 10 bytes, not a cascade tag), else :class:`BadUidError`."""
    if len(uid) not in UID_LENGTHS:
        shown = uid.hex().upper() or "an empty UID"
        raise BadUidError(f"{shown} has {len(uid)} bytes, not 4, 7 or 10")
    if len(uid) == 4 and uid[0] == CASCADE_TAG:
        raise BadUidError(
            f"{uid.hex().upper()} starts with the cascade tag 88: the reader stopped half-way"
        )
    return bytes(uid)


def enrollment_order(tile_set: TileSet) -> tuple[str, ...]:
    """The set's letters in enrollment order: the blank first, then the set's alphabet."""
    head = (BLANK,) if BLANK in tile_set.counts else ()
    return head + tuple(ch for ch in tile_set.alphabet if ch in tile_set.counts)


def registry_path(state_dir: Path, set_name: str) -> Path:
    """Where the registry of the tile set ``set_name`` lives under ``state_dir``."""
    return Path(state_dir) / "tiles" / f"{resolve_tile_set(set_name).name}.json"


class TileRegistry:
    """UID → letter (``?``: blank) for the tiles of one tile set, kept in a JSON file.

    Changes stay in memory until :meth:`save`.
    """

    def __init__(self, tile_set: TileSet, path: Path, entries: Mapping[bytes, str] | None = None) -> None:
        self.tile_set = tile_set
        self.path = Path(path)
        self.letters = enrollment_order(tile_set)
        self._letter_of: dict[bytes, str] = {}
        for uid, letter in (entries or {}).items():
            self.add(uid, letter)

    @classmethod
    def load(cls, state_dir: Path, set_name: str) -> TileRegistry:
        """The registry of ``set_name`` (``de`` or ``german``) under ``state_dir``; empty if none yet."""
        tile_set = resolve_tile_set(set_name)
        path = registry_path(state_dir, tile_set.name)
        registry = cls(tile_set, path)
        if path.exists():
            registry._letter_of = registry._read()
        return registry

    def _corrupt(self, what: str) -> CorruptRegistryError:
        key = set_key(self.tile_set)
        return CorruptRegistryError(
            f"tile registry {self.path} is corrupt ({what}); it was left untouched: fix it, or "
            f"move it away and enroll the tiles again with: scoreboard enroll --set {key}"
        )

    def _read(self) -> dict[bytes, str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise self._corrupt("not UTF-8 text") from None
        except OSError as e:
            raise RegistryIOError(f"cannot read tile registry {self.path}: {e.strerror or e}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise self._corrupt(f"not JSON: {e.msg} at line {e.lineno}") from None
        if not isinstance(data, dict) or not isinstance(data.get("tiles"), dict):
            raise self._corrupt("no 'tiles' table")
        if data.get("format") != FORMAT:
            raise self._corrupt(f"format {data.get('format')!r}, expected {FORMAT}")
        if data.get("tile_set") != self.tile_set.name:
            raise self._corrupt(f"it is for the tile set {data.get('tile_set')!r}, not {self.tile_set.name!r}")
        out: dict[bytes, str] = {}
        for letter, uids in data["tiles"].items():
            if letter not in self.tile_set.counts:
                raise self._corrupt(f"{letter!r} is not a letter of the {self.tile_set.name} set")
            if not isinstance(uids, list):
                raise self._corrupt(f"the tiles of {letter!r} are not a list")
            for text_uid in uids:
                try:
                    uid = check_uid(bytes.fromhex(text_uid))
                except (TypeError, ValueError):
                    raise self._corrupt(f"{text_uid!r} under {letter!r} is not a tag UID") from None
                if uid in out:
                    raise self._corrupt(f"tile {uid.hex().upper()} is listed under {out[uid]!r} and {letter!r}")
                out[uid] = letter
        return out

    def save(self) -> None:
        """Write the registry atomically (temporary file, fsync, rename)."""
        data = {
            "format": FORMAT,
            "tile_set": self.tile_set.name,
            "tiles": {
                letter: sorted(uid.hex().upper() for uid in self.uids(letter))
                for letter in self.letters
                if self.uids(letter)
            },
        }
        try:
            write_json_atomic(self.path, data)
        except OSError as e:
            raise RegistryIOError(f"cannot write tile registry {self.path}: {e.strerror or e}") from None

    # --- lookup -----------------------------------------------------------------------------

    def letter_of(self, uid: bytes) -> str | None:
        """The letter of tile ``uid`` (``?``: blank), None for a tile not enrolled."""
        return self._letter_of.get(bytes(uid))

    def tile_of(self, uid: bytes) -> Tile | None:
        """The engine tile of ``uid`` (a blank unassigned), None for a tile not enrolled."""
        letter = self.letter_of(uid)
        return None if letter is None else self.tile_set.tile(letter)

    def uids(self, letter: str) -> frozenset[bytes]:
        """The UIDs enrolled as ``letter``."""
        self.tile_set.tile(letter)  # UnknownTileError for a letter outside the set
        return frozenset(u for u, ch in self._letter_of.items() if ch == letter)

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, (bytes, bytearray)) and bytes(uid) in self._letter_of

    def __len__(self) -> int:
        return len(self._letter_of)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._letter_of)

    def items(self) -> list[tuple[bytes, str]]:
        """(UID, letter) pairs in enrollment order of the letters, then by UID."""
        rank = {ch: i for i, ch in enumerate(self.letters)}
        return sorted(self._letter_of.items(), key=lambda kv: (rank[kv[1]], kv[0]))

    # --- counts -----------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """Tiles enrolled per letter, every letter of the set in enrollment order (0 included)."""
        counts = dict.fromkeys(self.letters, 0)
        for letter in self._letter_of.values():
            counts[letter] += 1
        return counts

    def expected(self, letter: str) -> int:
        """How many tiles ``letter`` the set has."""
        self.tile_set.tile(letter)
        return self.tile_set.counts[letter]

    def missing(self) -> dict[str, int]:
        """Letters with fewer tiles enrolled than the set has: how many fewer."""
        return {ch: self.tile_set.counts[ch] - n for ch, n in self.counts().items() if n < self.tile_set.counts[ch]}

    def extra(self) -> dict[str, int]:
        """Letters with more tiles enrolled than the set has: how many more."""
        return {ch: n - self.tile_set.counts[ch] for ch, n in self.counts().items() if n > self.tile_set.counts[ch]}

    def letter_complete(self, letter: str) -> bool:
        """True when exactly the set's count of ``letter`` is enrolled."""
        return len(self.uids(letter)) == self.tile_set.counts[letter]

    @property
    def complete(self) -> bool:
        """True when every letter has exactly the set's count."""
        return not self.missing() and not self.extra()

    def check_complete(self) -> None:
        """:class:`IncompleteRegistryError` listing missing and extra tiles unless complete."""
        if not self.complete:
            raise IncompleteRegistryError(self.tile_set.name, self.missing(), self.extra())

    # --- changes ----------------------------------------------------------------------------

    def add(self, uid: bytes, letter: str) -> None:
        """Enroll tile ``uid`` as ``letter``; :class:`UidConflictError` if it is another letter."""
        uid = check_uid(bytes(uid))
        self.tile_set.tile(letter)
        registered = self._letter_of.get(uid)
        if registered is not None and registered != letter:
            raise UidConflictError(uid, registered, letter)
        self._letter_of[uid] = letter

    def set_letter(self, letter: str, uids: Iterable[bytes]) -> None:
        """Make ``uids`` exactly the tiles of ``letter`` (all or nothing)."""
        self.tile_set.tile(letter)
        new = {check_uid(bytes(u)) for u in uids}
        for uid in sorted(new):
            registered = self._letter_of.get(uid)
            if registered is not None and registered != letter:
                raise UidConflictError(uid, registered, letter)
        self._letter_of = {u: ch for u, ch in self._letter_of.items() if ch != letter}
        self._letter_of.update(dict.fromkeys(sorted(new), letter))

    def remove(self, uid: bytes) -> str | None:
        """Forget tile ``uid``; returns the letter it had, None if it was not enrolled."""
        return self._letter_of.pop(bytes(uid), None)

    def __repr__(self) -> str:
        return f"<TileRegistry {self.tile_set.name} {len(self)}/{self.tile_set.size} tiles at {str(self.path)!r}>"

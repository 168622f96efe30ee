"""Guided tile enrollment: a pure state machine fed with board snapshots.

Letter by letter in :func:`~scoreboard.registry.enrollment_order` (the blank first, then the
set's alphabet), the players put every tile of the letter on the board or the racks; the
enrollment counts the UIDs it reads and says what is wrong. When the count is right and
nothing is wrong, :meth:`Enrollment.confirm` stores the letter (the registry is saved at
once, so a quit or a power cut keeps every stored letter) and the board must be cleared
before the next letter.

Every step answers with a :class:`Prompt`, plain data, so the same object drives the
command line now and the OLED and buttons later. No I/O besides the registry's save, no
clock, no threads.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from drivers.board.protocol import Loc, uid_hex
from drivers.board.snapshot import BoardSnapshot
from engine.errors import ScoreboardError
from engine.tiles import BLANK

from .registry import BadUidError, TileRegistry, check_uid, letter_name


class NotReadyError(ScoreboardError, RuntimeError):
    """A confirmation while there is nothing right to store (wrong count, problems, wrong phase)."""


class Phase(enum.Enum):
    """Where the enrollment is."""

    PLACE = "place"  # put every tile of ``letter`` down, then confirm
    CLEAR = "clear"  # the letter is stored; take every tile off
    DONE = "done"  # no letter left to enroll


class IssueKind(enum.Enum):
    """Something on the board that is not right for the current step."""

    ENROLLED = "enrolled"  # a tile already enrolled under another letter
    SEEN_TWICE = "seen twice"  # one UID read at two locations at once
    BAD_UID = "bad uid"  # a reading that is not a UID
    UNKNOWN = "unknown"  # a tile not enrolled at all (shown while clearing, or when done)


@dataclass(frozen=True)
class Issue:
    """One problem, with the tile and where it lies; ``letter``: its enrolled letter if any."""

    kind: IssueKind
    uid: bytes
    locs: tuple[Loc, ...]
    message: str
    letter: str | None = None


@dataclass(frozen=True)
class Prompt:
    """What to tell the players now.

    ``message`` is the instruction, ``status`` the count line; ``expected``/``current``: the
    set's count of ``letter`` and the tiles of it read now (while clearing: 0 and the tiles
    left); ``issues`` must be solved before ``can_confirm``. ``enrolled``/``letters``: letters
    of the set complete in the registry, and how many letters the set has.
    """

    phase: Phase
    letter: str | None
    message: str
    status: str
    expected: int
    current: int
    issues: tuple[Issue, ...] = ()
    can_confirm: bool = False
    enrolled: int = 0
    letters: int = 0

    def lines(self) -> list[str]:
        """The prompt as text lines: message, status, one line per issue."""
        return [self.message, self.status, *(f"  {i.message}" for i in self.issues)]


def _what(letter: str, n: int) -> str:
    """``'5 tiles A'``, ``'1 tile Q'``, ``'2 blanks'``."""
    if letter == BLANK:
        return f"{n} blank{'s' if n != 1 else ''}"
    return f"{n} tile{'s' if n != 1 else ''} {letter}"


def _placed(letter: str) -> str:
    return "blanks" if letter == BLANK else letter


def _where(locs: Iterable[Loc]) -> str:
    return " and ".join(loc.name() for loc in locs)


class Enrollment:
    """Enrolls the letters of ``registry``'s tile set from board snapshots.

    ``letters``: the letters to enroll (re-enrolling one that is complete replaces its tiles);
    default every letter whose count is not yet exactly the set's, so a partial registry
    resumes where it stopped. They are taken in enrollment order.
    """

    def __init__(self, registry: TileRegistry, letters: Iterable[str] | None = None) -> None:
        self.registry = registry
        if letters is None:
            wanted = {ch for ch in registry.letters if not registry.letter_complete(ch)}
        else:
            wanted = set()
            for ch in letters:
                registry.tile_set.tile(ch)  # UnknownTileError quoting a letter outside the set
                wanted.add(ch)
        self._queue: list[str] = [ch for ch in registry.letters if ch in wanted]
        self._phase = Phase.PLACE if self._queue else Phase.DONE
        self._snapshot = BoardSnapshot()
        self._stored: str | None = None

    # --- state ------------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The current phase."""
        return self._phase

    @property
    def letter(self) -> str | None:
        """The letter being placed, None while clearing or when done."""
        return self._queue[0] if self._phase is Phase.PLACE else None

    @property
    def remaining(self) -> tuple[str, ...]:
        """Letters still to enroll, the current one first."""
        return tuple(self._queue)

    @property
    def done(self) -> bool:
        """True when no letter is left to enroll."""
        return self._phase is Phase.DONE

    @property
    def prompt(self) -> Prompt:
        """What to tell the players, for the last snapshot."""
        if self._phase is Phase.PLACE:
            return self._place_prompt(self._queue[0])
        if self._phase is Phase.CLEAR:
            return self._clear_prompt()
        return self._done_prompt()

    # --- inputs -----------------------------------------------------------------------------

    def feed(self, snapshot: BoardSnapshot) -> Prompt:
        """Take the board as ``snapshot`` reads it; returns the new prompt."""
        self._snapshot = snapshot
        if self._phase is Phase.CLEAR and not snapshot.tags:
            self._phase = Phase.PLACE if self._queue else Phase.DONE
        return self.prompt

    def confirm(self) -> Prompt:
        """Store the tiles on the board as the current letter; :class:`NotReadyError` unless right."""
        prompt = self.prompt
        if self._phase is not Phase.PLACE:
            raise NotReadyError(f"nothing to confirm now: {prompt.message}")
        if not prompt.can_confirm:
            problems = "; ".join([prompt.status, *(i.message for i in prompt.issues)])
            raise NotReadyError(f"cannot store {letter_name(self._queue[0])} yet: {problems}")
        letter = self._queue.pop(0)
        uids, _ = self._reading(letter)
        old = self.registry.uids(letter)
        self.registry.set_letter(letter, uids)
        try:
            self.registry.save()
        except BaseException:
            self.registry.set_letter(letter, old)
            self._queue.insert(0, letter)
            raise
        self._stored = letter
        self._phase = Phase.CLEAR if self._queue else Phase.DONE
        return self.prompt

    def reenroll(self, letter: str) -> Prompt:
        """Enroll ``letter`` next (again, if it is complete); its tiles are replaced on confirm."""
        self.registry.tile_set.tile(letter)
        if letter in self._queue:
            self._queue.remove(letter)
        self._queue.insert(0, letter)
        if self._phase is Phase.DONE:
            self._phase = Phase.CLEAR if self._snapshot.tags else Phase.PLACE
        return self.prompt

    def finish(self) -> TileRegistry:
        """The complete registry; :class:`~scoreboard.registry.IncompleteRegistryError` listing
        the missing (and extra) tiles unless every letter has exactly the set's count."""
        self.registry.check_complete()
        return self.registry

    # --- reading the board ------------------------------------------------------------------

    def _scan(self) -> tuple[dict[bytes, list[Loc]], list[Issue]]:
        """Valid UIDs by location, and the readings that are not UIDs."""
        by_uid: dict[bytes, list[Loc]] = {}
        issues = []
        for loc, uid in sorted(self._snapshot.tags.items()):
            try:
                check_uid(uid)
            except BadUidError as e:
                issues.append(
                    Issue(IssueKind.BAD_UID, uid, (loc,), f"unreadable tag at {loc.name()} ({e}): lift the tile and put it back")
                )
                continue
            by_uid.setdefault(uid, []).append(loc)
        return by_uid, issues

    def _twice(self, uid: bytes, locs: list[Loc]) -> Issue:
        return Issue(
            IssueKind.SEEN_TWICE,
            uid,
            tuple(locs),
            f"tile {uid_hex(uid)} is read at {_where(locs)} at once: check those places "
            "(a reader may pick up its neighbour's tag)",
            self.registry.letter_of(uid),
        )

    def _reading(self, letter: str) -> tuple[frozenset[bytes], tuple[Issue, ...]]:
        """The tiles on the board that may be ``letter``, and the problems."""
        by_uid, issues = self._scan()
        candidates = set()
        for uid, locs in by_uid.items():
            if len(locs) > 1:
                issues.append(self._twice(uid, locs))
            owner = self.registry.letter_of(uid)
            if owner is not None and owner != letter:
                issues.append(
                    Issue(
                        IssueKind.ENROLLED,
                        uid,
                        tuple(locs),
                        f"tile {uid_hex(uid)} at {_where(locs)} is already {letter_name(owner)}: take it off"
                        f" (or enroll {letter_name(owner)} again if that is wrong)",
                        owner,
                    )
                )
            else:
                candidates.add(uid)
        issues.sort(key=lambda i: i.locs)
        return frozenset(candidates), tuple(issues)

    def _progress(self) -> tuple[int, int]:
        letters = self.registry.letters
        return sum(self.registry.letter_complete(ch) for ch in letters), len(letters)

    def _place_prompt(self, letter: str) -> Prompt:
        expected = self.registry.expected(letter)
        uids, issues = self._reading(letter)
        n = len(uids)
        if expected == 1:
            message = f"Place the {_what(letter, 1)} on the board (or a rack)"
        else:
            message = f"Place all {_what(letter, expected)} on the board (or the racks)"
        status = f"{n} of {expected} {_placed(letter)} placed"
        if n < expected:
            status += f": {expected - n} to go"
        elif n > expected:
            status += f": {n - expected} too many"
        elif issues:
            status += ": solve the problems below"
        else:
            status += ": confirm to store them"
        enrolled, letters = self._progress()
        return Prompt(
            Phase.PLACE, letter, message, status, expected, n, issues,
            can_confirm=n == expected and not issues, enrolled=enrolled, letters=letters,
        )

    def _unknown(self) -> tuple[Issue, ...]:
        by_uid, issues = self._scan()
        for uid, locs in by_uid.items():
            if len(locs) > 1:
                issues.append(self._twice(uid, locs))
            if uid not in self.registry:
                issues.append(
                    Issue(IssueKind.UNKNOWN, uid, tuple(locs), f"tile {uid_hex(uid)} at {_where(locs)} is not enrolled")
                )
        issues.sort(key=lambda i: i.locs)
        return tuple(issues)

    def _clear_prompt(self) -> Prompt:
        left = len(self._snapshot.tags)
        message = f"Clear the board and the racks for the next letter: {letter_name(self._queue[0])}"
        if self._stored is not None:
            stored = self._stored
            message = f"{_what(stored, len(self.registry.uids(stored)))} stored. {message}"
        status = f"{left} tile{'s' if left != 1 else ''} still on the board"
        enrolled, letters = self._progress()
        return Prompt(Phase.CLEAR, None, message, status, 0, left, self._unknown(), enrolled=enrolled, letters=letters)

    def _done_prompt(self) -> Prompt:
        reg = self.registry
        if reg.complete:
            message = f"Every letter is enrolled: {len(reg)} tiles of the {reg.tile_set.name} set"
        else:
            message = f"No letter left to enroll here, but the {reg.tile_set.name} registry is incomplete"
        missing = ", ".join(_what(ch, n) for ch, n in reg.missing().items())
        extra = ", ".join(_what(ch, n) for ch, n in reg.extra().items())
        status = "; ".join(
            p for p in (missing and f"missing {missing}", extra and f"too many {extra}") if p
        ) or "the registry is complete"
        enrolled, letters = self._progress()
        return Prompt(
            Phase.DONE, None, message, status, reg.tile_set.size, len(reg), self._unknown(),
            enrolled=enrolled, letters=letters,
        )

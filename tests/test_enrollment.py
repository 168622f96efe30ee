"""Guided enrollment: the state machine fed with snapshots, and ``scoreboard enroll``."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import threading
import types
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pytest

from drivers.board.protocol import Loc
from drivers.board.snapshot import BoardSnapshot
from engine.board import Square
from engine.errors import ScoreboardError, UnknownTileError
from engine.tiles import GERMAN
from scoreboard import enroll_cli
from scoreboard.cli import build_parser
from scoreboard.enrollment import Enrollment, IssueKind, NotReadyError, Phase, Prompt
from scoreboard.registry import (
    IncompleteRegistryError,
    RegistryIOError,
    TileRegistry,
    enrollment_order,
)

ORDER = enrollment_order(GERMAN)


def uid(letter: str, i: int) -> bytes:
    """A deterministic 7-byte UID for the ``i``-th German tile ``letter``."""
    return bytes([0x04, 0x5A, ORDER.index(letter), i, 0xC1, 0xD2, 0xE3])


def tiles(letter: str, n: int | None = None, start: int = 0) -> list[bytes]:
    """``n`` (default: the set's count) UIDs of ``letter`` from the ``start``-th."""
    return [uid(letter, i) for i in range(start, start + (GERMAN.counts[letter] if n is None else n))]


def board(uids: Iterable[bytes], *, racks: Sequence[bytes] = ()) -> BoardSnapshot:
    """A snapshot with ``uids`` on the board from A1 on, ``racks`` on rack 1 from slot 1."""
    cells = [(Loc.cell(Square.from_cell(i)), u) for i, u in enumerate(uids)]
    slots = [(Loc.slot(0, i), u) for i, u in enumerate(racks)]
    return BoardSnapshot.of(cells + slots)


EMPTY = BoardSnapshot()


def enroll_letter(e: Enrollment, letter: str) -> Prompt:
    """Place all tiles of ``letter``, confirm, clear the board."""
    assert e.letter == letter
    assert e.feed(board(tiles(letter))).can_confirm
    e.confirm()
    return e.feed(EMPTY)


@pytest.fixture
def registry(tmp_path: Path) -> TileRegistry:
    return TileRegistry.load(tmp_path, "de")


# --- the state machine -----------------------------------------------------------------------


def test_whole_german_set(registry: TileRegistry, tmp_path: Path) -> None:
    e = Enrollment(registry)
    seen = []
    while not e.done:
        letter = e.letter
        assert letter is not None
        n = GERMAN.counts[letter]
        seen.append(letter)
        prompt = e.prompt
        assert (prompt.phase, prompt.letter, prompt.expected, prompt.current) == (Phase.PLACE, letter, n, 0)
        assert prompt.enrolled == len(seen) - 1 and prompt.letters == 30
        if letter == "?":
            assert prompt.message == "Place all 2 blanks on the board (or the racks)"
        elif n == 1:
            assert prompt.message == f"Place the 1 tile {letter} on the board (or a rack)"
        else:
            assert prompt.message == f"Place all {n} tiles {letter} on the board (or the racks)"
        if n > 1:  # a few on the board and one on a rack, not yet all
            p = e.feed(board(tiles(letter, n - 2), racks=[uid(letter, n - 2)]))
            assert (p.current, p.can_confirm) == (n - 1, False)
        p = e.feed(board(tiles(letter, n - 1), racks=[uid(letter, n - 1)]))
        assert (p.current, p.can_confirm, p.issues) == (n, True, ())
        p = e.confirm()
        if e.done:
            break
        assert p.phase is Phase.CLEAR and p.letter is None and p.current == n
        assert e.feed(board([uid(letter, 0)])).phase is Phase.CLEAR  # one tile still there
        e.feed(EMPTY)
    assert seen == list(ORDER)  # the blank first, then the set's alphabet with the umlauts
    assert e.prompt.message == "Every letter is enrolled: 102 tiles of the german set"
    assert e.finish() is registry and registry.complete
    again = TileRegistry.load(tmp_path, "de")
    assert again.complete and dict(again.items()) == {u: ch for ch in ORDER for u in tiles(ch)}


def test_count_messages(registry: TileRegistry) -> None:
    e = Enrollment(registry, ["A"])
    assert e.feed(board(tiles("A", 3))).status == "3 of 5 A placed: 2 to go"
    p = e.feed(board(tiles("A", 7)))
    assert (p.status, p.expected, p.current, p.can_confirm) == ("7 of 5 A placed: 2 too many", 5, 7, False)
    with pytest.raises(NotReadyError, match="cannot store A yet: 7 of 5 A placed: 2 too many"):
        e.confirm()
    assert registry.uids("A") == frozenset() and e.letter == "A"
    assert e.feed(board(tiles("A"))).status == "5 of 5 A placed: confirm to store them"


def test_tile_enrolled_under_another_letter(registry: TileRegistry) -> None:
    registry.set_letter("E", tiles("E"))
    e = Enrollment(registry, ["A"])
    stray = uid("E", 4)
    p = e.feed(board([*tiles("A"), stray]))
    assert p.current == 5 and not p.can_confirm  # the E is not counted, but must go
    assert [(i.kind, i.uid, i.letter) for i in p.issues] == [(IssueKind.ENROLLED, stray, "E")]
    assert p.issues[0].message == (
        f"tile {stray.hex().upper()} at F1 is already E: take it off (or enroll E again if that is wrong)"
    )
    assert p.status == "5 of 5 A placed: solve the problems below"
    with pytest.raises(NotReadyError, match=f"tile {stray.hex().upper()} at F1 is already E"):
        e.confirm()
    assert e.feed(board(tiles("A"))).can_confirm


def test_uid_read_twice_at_once(registry: TileRegistry) -> None:
    e = Enrollment(registry, ["D"])
    d = tiles("D")
    p = e.feed(BoardSnapshot.of([(Loc.cell("H8"), d[0]), (Loc.cell("H9"), d[0]), *((Loc.cell(f"A{i}"), u) for i, u in enumerate(d[1:], 1))]))
    assert p.current == 4 and not p.can_confirm
    twice = [i for i in p.issues if i.kind is IssueKind.SEEN_TWICE]
    assert len(twice) == 1 and twice[0].locs == (Loc.cell("H8"), Loc.cell("H9"))
    assert twice[0].message.startswith(f"tile {d[0].hex().upper()} is read at H8 and H9 at once")
    # The right count with one tile read twice is still refused: a tag there went unread.
    p = e.feed(BoardSnapshot.of([(Loc.cell("H8"), d[0]), (Loc.cell("H9"), d[0]), *((Loc.cell(f"A{i}"), u) for i, u in enumerate(d[1:] + [uid("D", 9)], 1))]))
    assert p.current == 5 and not p.can_confirm


def test_unreadable_tag(registry: TileRegistry) -> None:
    e = Enrollment(registry, ["Q"])
    p = e.feed(board([uid("Q", 0), bytes.fromhex("88A1B2C3")]))
    assert p.current == 1 and not p.can_confirm
    assert [i.kind for i in p.issues] == [IssueKind.BAD_UID]
    assert p.issues[0].message.startswith("unreadable tag at B1 (88A1B2C3 starts with the cascade tag 88")


def test_clear_phase_waits_for_an_empty_board_and_names_unknown_tiles(registry: TileRegistry) -> None:
    e = Enrollment(registry, ["B", "C"])
    e.feed(board(tiles("B")))
    p = e.confirm()
    assert p.message == "2 tiles B stored. Clear the board and the racks for the next letter: C"
    assert (p.status, p.issues) == ("2 tiles still on the board", ())
    with pytest.raises(NotReadyError, match="nothing to confirm now: 2 tiles B stored"):
        e.confirm()
    stranger = bytes.fromhex("04FFFFFFFFFFFF")
    p = e.feed(board([stranger]))
    assert p.phase is Phase.CLEAR and p.status == "1 tile still on the board"
    assert [(i.kind, i.message) for i in p.issues] == [(IssueKind.UNKNOWN, "tile 04FFFFFFFFFFFF at A1 is not enrolled")]
    assert e.feed(EMPTY).letter == "C"


def test_resume_skips_complete_letters(registry: TileRegistry, tmp_path: Path) -> None:
    e = Enrollment(registry)
    for letter in ORDER[:4]:
        enroll_letter(e, letter)
    e.feed(board(tiles("C", 1)))  # half-way through C, then the program stops
    registry.add(uid("E", 0), "E")  # a partial letter is not complete: enrolled again
    registry.save()

    resumed = Enrollment(TileRegistry.load(tmp_path, "de"))
    assert resumed.letter == "C" and resumed.remaining[:3] == ("C", "D", "E") and len(resumed.remaining) == 26
    p = resumed.prompt
    assert (p.enrolled, p.letters, p.current) == (4, 30, 0)
    p = resumed.feed(board(tiles("C")))
    assert p.can_confirm


def test_a_partly_known_letter_counts_its_tiles(registry: TileRegistry) -> None:
    registry.set_letter("H", tiles("H", 2))
    assert "H" in Enrollment(registry).remaining  # 2 of 4 is not complete
    e = Enrollment(registry, ["H"])
    p = e.feed(board(tiles("H")))
    assert (p.current, p.issues, p.can_confirm) == (4, (), True)


def test_reenroll_one_letter_replaces_its_tiles(tmp_path: Path) -> None:
    registry = TileRegistry(GERMAN, tmp_path / "tiles" / "german.json", {u: ch for ch in ORDER for u in tiles(ch)})
    assert Enrollment(registry).done  # nothing to do for a complete registry
    e = Enrollment(registry, ["A"])
    assert e.letter == "A" and e.remaining == ("A",)
    lost, new = uid("A", 4), uid("A", 7)
    p = e.feed(board([*tiles("A", 4), new]))
    assert p.can_confirm and p.issues == ()
    p = e.confirm()
    assert e.done and p.phase is Phase.DONE
    assert registry.letter_of(lost) is None and registry.letter_of(new) == "A" and registry.complete
    assert TileRegistry.load(tmp_path, "de").letter_of(new) == "A"


def test_reenroll_during_a_session(registry: TileRegistry) -> None:
    e = Enrollment(registry)
    enroll_letter(e, "?")
    enroll_letter(e, "A")
    assert e.letter == "Ä"
    p = e.reenroll("?")
    assert (p.letter, p.message) == ("?", "Place all 2 blanks on the board (or the racks)")
    assert e.remaining[:3] == ("?", "Ä", "B")
    enroll_letter(e, "?")
    assert e.letter == "Ä"
    with pytest.raises(UnknownTileError, match="'1' is not a tile of the german set"):
        e.reenroll("1")


def test_unknown_letter_refused(registry: TileRegistry) -> None:
    with pytest.raises(UnknownTileError, match="'Ω' is not a tile of the german set"):
        Enrollment(registry, ["Ω"])


def test_finish_refused_until_complete(registry: TileRegistry) -> None:
    e = Enrollment(registry)
    enroll_letter(e, "?")
    enroll_letter(e, "A")
    with pytest.raises(IncompleteRegistryError) as info:
        e.finish()
    message = str(info.value)
    assert message.startswith("the german tile registry is incomplete: missing 1 Ä, 2 B, 2 C, 4 D, 15 E")
    assert "blank" not in message and " A," not in message
    assert info.value.missing["E"] == 15 and len(info.value.missing) == 28


def test_finish_refused_with_too_many(registry: TileRegistry) -> None:
    for letter in ORDER:
        registry.set_letter(letter, tiles(letter))
    registry.add(uid("Y", 1), "Y")
    e = Enrollment(registry)
    assert e.remaining == ("Y",)
    with pytest.raises(IncompleteRegistryError, match="incomplete: too many 1 Y$"):
        e.finish()


def test_a_failed_save_keeps_the_letter_to_do(registry: TileRegistry, monkeypatch: pytest.MonkeyPatch) -> None:
    e = Enrollment(registry, ["F"])
    e.feed(board(tiles("F")))

    def fail() -> None:
        raise RegistryIOError("cannot write tile registry x: No space left on device")

    monkeypatch.setattr(registry, "save", fail)
    with pytest.raises(RegistryIOError):
        e.confirm()
    assert e.letter == "F" and registry.uids("F") == frozenset() and e.prompt.can_confirm


def test_error_classes() -> None:
    assert issubclass(NotReadyError, ScoreboardError) and issubclass(NotReadyError, RuntimeError)
    assert issubclass(enroll_cli.NoBoardLinkError, ValueError)


# --- the command line ------------------------------------------------------------------------


class Script:
    """Board snapshots and input lines in one order, handed to the CLI's two reader threads in
    lock step: an item is given out only after the one before it went into the CLI's queue."""

    def __init__(self, steps: Sequence[BoardSnapshot | str], *, input_ends: bool = True, board_ends: bool = True) -> None:
        self.steps = list(steps)
        self.pos = 0
        self.cond = threading.Condition()
        self.ends = {str: input_ends, BoardSnapshot: board_ends}
        self.release = threading.Event()
        self.opened: list[str] = []

    def _serve(self, kind: type) -> Iterator[object]:
        while True:
            with self.cond:
                mine = self.cond.wait_for(
                    lambda: self.pos >= len(self.steps) or isinstance(self.steps[self.pos], kind), timeout=10
                )
                if not mine or self.pos >= len(self.steps):
                    break
                item = self.steps[self.pos]
            yield item  # resumed once the reader thread has queued it
            with self.cond:
                self.pos += 1
                self.cond.notify_all()
        if not self.ends[kind]:
            self.release.wait(10)  # a player who never types again, a link that stays up

    def open_board(self, link: str) -> Iterable[BoardSnapshot]:
        self.opened.append(link)
        return self._serve(BoardSnapshot)  # type: ignore[return-value]

    def lines(self) -> Iterable[str]:
        return self._serve(str)  # type: ignore[return-value]


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("STATE_DIRECTORY", "SCOREBOARD_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "scoreboard"


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["enroll", *argv])


def run_cli(script: Script, *argv: str) -> tuple[int, str]:
    args = parse(*argv)
    out = io.StringIO()
    code = args.func(args, open_board=script.open_board, lines=script.lines(), out=out)
    script.release.set()
    return code, out.getvalue()


def letter_steps(letter: str) -> list[BoardSnapshot | str]:
    """Some tiles (Enter is refused), all of them, Enter, clear the board."""
    n = GERMAN.counts[letter]
    return [board(tiles(letter, n - 1)), "", board(tiles(letter)), "\n", EMPTY]


def test_cli_whole_set(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    steps = [step for letter in ORDER for step in letter_steps(letter)][:-1]  # done before clearing
    script = Script(steps)
    code, out = run_cli(script, "--set", "de", "--link", "/dev/serial/by-id/board")
    assert code == 0, out + capsys.readouterr().err
    assert script.opened == ["/dev/serial/by-id/board"] and script.pos == len(steps)
    lines = out.splitlines()
    assert lines[0].startswith(f"Enrolling the german set into {state / 'tiles' / 'german.json'}: 0 of 30 letters done")
    assert lines[1:6] == [
        "[0/30] Place all 2 blanks on the board (or the racks)",
        "  0 of 2 blanks placed: 2 to go",
        "  1 of 2 blanks placed: 1 to go",
        "  not yet: 1 of 2 blanks placed: 1 to go",
        "  2 of 2 blanks placed: confirm to store them [Enter: store, q: quit]",
    ]
    assert "[1/30] 2 blanks stored. Clear the board and the racks for the next letter: A" in lines
    assert "[2/30] Place the 1 tile Ä on the board (or a rack)" in lines
    assert lines[-1] == f"Enrollment complete: 102 tiles of the german set in {state / 'tiles' / 'german.json'}"
    assert TileRegistry.load(state, "de").complete


def test_cli_quit_then_resume(state: Path) -> None:
    first = Script([*letter_steps("?"), *letter_steps("A"), board(tiles("Ä")), "q"])
    code, out = run_cli(first, "--set", "de", "--link", "L")
    assert code == 1
    assert out.splitlines()[-1] == (
        f"Stopped: 2 of 30 letters enrolled, kept in {state / 'tiles' / 'german.json'}; run again to resume."
    )
    second = Script(["q"])
    code, out = run_cli(second, "--set", "de", "--link", "L")
    assert code == 1
    assert "0 of 30" not in out and "2 of 30 letters done; to do: Ä B C" in out.splitlines()[0]
    assert out.splitlines()[1] == "[2/30] Place the 1 tile Ä on the board (or a rack)"


def test_cli_reports_duplicates(state: Path) -> None:
    stray = uid("?", 0)
    script = Script([*letter_steps("?"), board([*tiles("A"), stray]), "", "q"])
    code, out = run_cli(script, "--set", "de", "--link", "L")
    assert code == 1
    dup = f"  ! tile {stray.hex().upper()} at F1 is already blank: take it off (or enroll blank again if that is wrong)"
    assert out.splitlines().count(dup) == 2  # when it appears, and again when Enter is refused
    assert "  not yet: 5 of 5 A placed: solve the problems below" in out.splitlines()
    assert TileRegistry.load(state, "de").uids("A") == frozenset()


def test_cli_other_input_gets_help(state: Path) -> None:
    code, out = run_cli(Script(["what?", "Q"]), "--set", "de", "--link", "L")
    assert code == 1 and "  Enter: store the letter once the count is right; q: quit (stored letters are kept)" in out


def test_cli_end_of_input_keeps_progress(state: Path) -> None:
    code, out = run_cli(Script([*letter_steps("?")], board_ends=False), "--set", "de", "--link", "L")
    assert code == 1 and out.splitlines()[-1].startswith("End of input: 1 of 30 letters enrolled")
    assert TileRegistry.load(state, "de").letter_complete("?")


def test_cli_board_link_closed(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = Script([*letter_steps("?"), board(tiles("A", 2))], input_ends=False)
    code, _ = run_cli(script, "--set", "de", "--link", "L")
    assert code == 2
    assert capsys.readouterr().err == (
        f"scoreboard: the board link closed; stored letters are kept in {state / 'tiles' / 'german.json'}\n"
    )


def test_cli_board_link_fails(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(link: str) -> Iterator[BoardSnapshot]:
        yield EMPTY
        raise OSError(5, "Input/output error")

    release = threading.Event()

    def quiet() -> Iterator[str]:
        release.wait(10)
        yield from ()

    args = parse("--set", "de", "--link", "L")
    code = args.func(args, open_board=broken, lines=quiet(), out=io.StringIO())
    release.set()
    assert code == 2 and "the board link failed: [Errno 5] Input/output error" in capsys.readouterr().err


def test_cli_reenroll_letter(state: Path) -> None:
    reg = TileRegistry.load(state, "de")
    for letter in ORDER:
        reg.set_letter(letter, tiles(letter))
    reg.save()
    new_blank = uid("?", 9)
    script = Script([board([uid("?", 0), new_blank]), ""])
    code, out = run_cli(script, "--set", "de", "--link", "L", "--letter", "blank")
    assert code == 0 and out.splitlines()[1] == "[30/30] Place all 2 blanks on the board (or the racks)"
    assert TileRegistry.load(state, "de").uids("?") == {uid("?", 0), new_blank}


def test_cli_reenroll_on_incomplete_registry_refuses_to_finish(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_cli(Script([board(tiles("Ö")), ""]), "--set", "de", "--link", "L", "--letter", "ö")
    assert code == 1 and "1 tile Ö stored" not in out
    err = capsys.readouterr().err
    assert err.startswith("scoreboard: the german tile registry is incomplete: missing 2 blanks, 5 A, 1 Ä")
    assert " Ö," not in err and err.rstrip().endswith("run scoreboard enroll --set de to enroll them")


def test_cli_complete_registry_does_not_open_the_board(state: Path) -> None:
    reg = TileRegistry.load(state, "de")
    for letter in ORDER:
        reg.set_letter(letter, tiles(letter))
    reg.save()

    def no_board(link: str) -> Iterable[BoardSnapshot]:
        raise AssertionError("the board was opened")

    args = parse("--set", "de")
    out = io.StringIO()
    assert args.func(args, open_board=no_board, lines=[], out=out) == 0
    assert "registry" in out.getvalue() and "is complete (102 tiles); use --letter L" in out.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--set", "de"), "scoreboard: no board link (no serial port matches"),
        (("--set", "fr", "--link", "L", "--letter", "Ä"), "scoreboard: 'Ä' is not a tile of the french set"),
        (("--set", "en", "--link", "L", "--config", "/nonexistent/c.toml"), "/nonexistent/c.toml"),
    ],
)
def test_cli_errors(state: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str) -> None:
    script = Script([])
    code, _ = run_cli(script, *argv)
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("scoreboard: ") and message in err and script.opened == []


def test_cli_corrupt_registry(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = state / "tiles" / "german.json"
    path.parent.mkdir(parents=True)
    path.write_text("{", encoding="utf-8")
    code, _ = run_cli(Script([]), "--set", "de", "--link", "L")
    assert code == 2 and f"tile registry {path} is corrupt" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "{"


def test_cli_board_that_cannot_be_opened(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def missing(link: str) -> Iterable[BoardSnapshot]:
        raise FileNotFoundError(2, "No such file or directory", link)

    args = parse("--set", "de", "--link", "/dev/ttyX")
    assert args.func(args, open_board=missing, lines=[], out=io.StringIO()) == 2
    assert "cannot open the board link: [Errno 2] No such file or directory: '/dev/ttyX'" in capsys.readouterr().err


# --- the real driver, imported only when needed ---------------------------------------------


def test_driver_open_board_is_used(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("drivers.board.serial_link")
    opened: list[str] = []

    def open_board(link: str) -> Iterable[BoardSnapshot]:
        opened.append(link)
        return [board(tiles("?"))]

    fake.open_board = open_board  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "drivers.board.serial_link", fake)
    assert enroll_cli.board_opener() is open_board
    release = threading.Event()

    def later() -> Iterator[str]:
        release.wait(10)
        yield from ()

    args = parse("--set", "de", "--link", "/dev/b")
    assert args.func(args, lines=later(), out=io.StringIO()) == 2  # the list ends: link closed
    release.set()
    assert opened == ["/dev/b"]


def test_serial_driver_not_imported_with_the_module() -> None:
    code = "import sys, scoreboard.enroll_cli; print('drivers.board.serial_link' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_parse_letter() -> None:
    assert [enroll_cli.parse_letter(t) for t in ("a", "ä", "?", "Blank", " e ")] == ["A", "Ä", "?", "?", "E"]

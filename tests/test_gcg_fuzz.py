"""Seeded fuzzing of the GCG reader and ``scoreboard replay`` with mutated real records.

Each case takes a record of tests/data/gcg*/ and breaks it: flipped, inserted or deleted
bytes, lines deleted, doubled, swapped or repeated past a bound, tokens of event lines and
pragmas replaced by hostile ones (huge or non-ASCII numbers, stray signs, long words),
another encoding, truncation. Every outcome is a record that replays, or a
:class:`~engine.errors.GcgError` (exit 2 with the file's name and the reason); never another
exception. Records past a bound are refused with :class:`~engine.errors.GcgLimitError`
naming the bound and the number found.
"""

from __future__ import annotations

import random
from pathlib import Path

import faultlog
import pytest

from engine import gcg
from engine.errors import GcgError, GcgLimitError, ScoreboardError
from engine.replay import replay
from scoreboard.cli import main

DATA = Path(__file__).resolve().parent / "data"
RECORDS = [p.read_bytes() for p in sorted(DATA.glob("gcg*/*.gcg"))]
TOKENS = [
    "+" + "9" * 5000, "-" + "1" * 40, "²", "٣", "+٣", "-²", "-99999999999999999999", "-", "--", "(", ")", "()",
    "(challenge)", "(time)", "(ADJUST)", "(XYZ)", "(?)", "?", "", "é", "ß", "Ω", "A" * 1000, "8D", "D8", "99Z",
    "0A", "16A", "15O", "o15", "8", "H", "+0", "-0", "0", "+5", "-5", "100", "-100", ":", ">", "#", "\x00", "\r",
    "\u2028", "\x85", "😀", "-" + "9" * 5000,
]
PRAGMAS = [
    "#player²", "#player3", "#player5 x", "#player1", "#player" + "9" * 5000 + " z", "#rack1 ZZZ", "#rack²",
    "#rack" + "1" * 5000 + " A", "#rules de rack=²", "#rules de target=" + "9" * 5000, "#rules xx", "#rules",
    "#character-encoding latin1", "#character-encoding UTF-8", "#tile-distribution klingon", "#note x", "#",
    "#title " + "t" * 2000, "#id", "#lexicon ?",
]


def _mutate_line(rng: random.Random, line: bytes) -> bytes:
    if line.startswith(b">") and rng.random() < 0.8:
        words = line.split(b" ")
        words[rng.randrange(len(words))] = rng.choice(TOKENS).encode("utf-8")
        return b" ".join(words)
    return rng.choice(PRAGMAS).encode("utf-8")


def mutate(rng: random.Random, data: bytes) -> bytes:
    """``data`` broken in 1 to 4 random ways."""
    for _ in range(rng.randint(1, 4)):
        lines = data.split(b"\n")
        how = rng.randrange(9)
        i = rng.randrange(len(lines))
        if how == 0 and data:  # a byte flipped, inserted or deleted
            k = rng.randrange(len(data))
            data = data[:k] + bytes([rng.randrange(256)]) * rng.randint(0, 2) + data[k + 1 :]
            continue
        if how == 1:
            lines[i] = _mutate_line(rng, lines[i])
        elif how == 2:
            del lines[i]
        elif how == 3:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif how == 4:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == 5:
            lines.insert(i, rng.choice(PRAGMAS).encode("utf-8"))
        elif how == 6 and rng.random() < 0.15:  # past a bound: many events, notes or blank lines
            repeat = rng.choice([lines[i], b"#note more", b"", b"   ", b"x"])
            lines[i:i] = [repeat] * rng.choice([gcg.MAX_EVENTS + 1, gcg.MAX_LINES + 1, 3000])
        elif how == 7:
            data = data[: rng.randrange(len(data) + 1)]
            continue
        elif how == 8:
            encoding = rng.choice(["utf-16", "utf-8-sig", "cp1252", "crlf"])
            text = data.decode("iso-8859-1")
            data = text.replace("\n", "\r\n").encode() if encoding == "crlf" else text.encode(encoding, "replace")
            continue
        data = b"\n".join(lines)
    return data


def check_case(data: bytes) -> str:
    """Read and replay ``data`` as ``scoreboard replay`` does; the outcome's name."""
    try:
        record = gcg.read(data)
        profile = record.profile()
        profile.check_players(len(record.players))
    except GcgLimitError as e:
        assert e.bound in ("bytes", "lines", "events") and e.found > e.limit
        assert e.limit == {"bytes": gcg.MAX_BYTES, "lines": gcg.MAX_LINES, "events": gcg.MAX_EVENTS}[e.bound]
        assert len(str(e)) < 200
        return f"refused: {e.bound}"
    except ScoreboardError as e:  # GcgError, or #rules the record cannot have
        assert len(str(e)) < 300, str(e)[:300]  # a message, not the file
        return "refused"
    assert len(record.events) <= gcg.MAX_EVENTS
    report = replay(record, profile)
    assert report.events == len(record.events)
    return "replayed"


def _fuzz(seed: int, count: int) -> dict[str, int]:
    rng = random.Random(seed)
    outcomes: dict[str, int] = {}
    for _ in range(count):
        outcome = check_case(mutate(rng, rng.choice(RECORDS)))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return outcomes


def test_mutated_records_replay_or_are_refused_cleanly() -> None:
    outcomes = _fuzz(3, 400)
    faultlog.injected("mutated GCG record", 400)
    assert outcomes["replayed"] > 50 and outcomes["refused"] > 50
    assert {"refused: events", "refused: lines"} <= outcomes.keys()


@pytest.mark.soak
def test_mutated_records_soak() -> None:
    for seed in range(100, 110):
        _fuzz(seed, 1000)
    faultlog.injected("mutated GCG record (soak)", 10_000)


def test_mutated_records_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(5)
    for n in range(40):
        path = tmp_path / f"game{n}.gcg"
        path.write_bytes(mutate(rng, rng.choice(RECORDS)))
        code = main(["replay", str(path)])
        out, err = capsys.readouterr()
        if code == 2:
            assert err.startswith(f"{path}: ") and not out
        else:
            assert code in (0, 1) and out.splitlines()[-1].startswith("replayed ")
    faultlog.injected("mutated GCG record (cli)", 40)


def test_a_file_past_the_byte_bound_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.gcg"
    path.write_bytes(b"#note " + b"x" * (gcg.MAX_BYTES * 3))
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"{path}: too large: {gcg.MAX_BYTES * 3 + 6} bytes, more than the {gcg.MAX_BYTES} a game record may have\n"
    )


@pytest.mark.parametrize(
    ("text", "bound", "found"),
    [
        ("#player1 a\n#player2 b\n" + ">a: A 8H A +1 1\n" * (gcg.MAX_EVENTS + 1), "events", gcg.MAX_EVENTS + 1),
        ("#note x\n" + "more\n" * gcg.MAX_LINES, "lines", gcg.MAX_LINES + 1),
        ("\n" * gcg.MAX_LINES + "#note x", "lines", gcg.MAX_LINES + 1),
    ],
)
def test_bounds_name_the_bound_and_the_number_found(text: str, bound: str, found: int) -> None:
    with pytest.raises(GcgLimitError) as info:
        gcg.read(text.encode())
    assert (info.value.bound, info.value.found) == (bound, found)
    assert isinstance(info.value, GcgError)


def test_records_at_the_bounds_are_read() -> None:
    events = "#player1 a\n#player2 b\n" + ">a: A - +0 0\n" * gcg.MAX_EVENTS
    assert len(gcg.read(events).events) == gcg.MAX_EVENTS
    note = "#note x\n" + "more\n" * (gcg.MAX_LINES - 1)
    assert gcg.read(note).notes == ["x" + "\nmore" * (gcg.MAX_LINES - 1)]


def test_notes_are_joined_once_per_event_not_once_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = gcg.replace
    monkeypatch.setattr(gcg, "replace", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    text = "#player1 a\n#player2 b\n" + (">a: A - +0 0\n" + "#note x\nmore\n" * 300 + "#note y\n" + "line\n" * 500) * 2
    record = gcg.read(text)
    assert len(calls) == 2  # one per event with notes (each line used to copy them all)
    assert record.events[0].notes == ("x\nmore",) * 300 + ("y" + "\nline" * 500,)


def test_the_help_gives_the_bounds() -> None:
    from scoreboard.cli import build_parser

    replay_help = build_parser()._subparsers._group_actions[0].choices["replay"].description  # type: ignore[union-attr]
    assert f"{gcg.MAX_BYTES >> 20} MiB, {gcg.MAX_LINES:,} lines or {gcg.MAX_EVENTS:,} events" in replay_help

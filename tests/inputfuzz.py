"""Seeded generators of table scripts and control requests for the input fuzzers: good lines
of every command, and mutations of them that no one would write (but a tool might).

Everything comes from a :class:`random.Random` the caller seeds, so a failing case is
reproduced by its seed and number.
"""

from __future__ import annotations

import random

from engine.tiles import get_tile_set

SEATS = 2  # the default configuration: 2 players, the German set, racks of 7
TILE_SET = "german"

ODD_NUMBERS = [
    "nan", "NaN", "inf", "-inf", "Infinity", "1e308", "-1e308", "1e-320", "-1", "-0", "0", "0.0", "1_0", "0x10",
    "٣", "1e6", "99999", "3600.5", "10.000001", "21600", "21601", "131073", "10001", "4e3", "9" * 5000, "60.0000001",
]
ODD_WORDS = [
    "place", "remove", "move", "slide", "flicker", "junk", "garbage", "corrupt", "drop", "duplicate", "reorder",
    "unplug", "reboot", "fault", "recover", "press", "hold", "tick", "end", "at", "after", "advance", "ping", "tags",
    "menu", "done", "challenge", "long", "reader", "dead", "alternate", "H8", "h8", "R1.3", "R2.7", "R3.1", "R4.9",
    "R5.1", "R1.0", "Z9", "A0", "O15", "P1", "E.0", "e.14", "Q.5", "É.0", "?.1", "?.2", "ß.0", "04A1B2C3D4E5F6",
    "04A1", "zz", "#", "E.", ".0", "R", "5", "0",
]
ODD_CHARS = ["\x00", "\x0c", "\t", "\x0b", "\x85", "\u2028", "\r", "é", "\u200b", "\ufeff", "#", " "]
ROLES = ["done", "challenge"]


def board_loc(rng: random.Random, seats: int = SEATS) -> str:
    """A board cell or a rack slot of this table."""
    if rng.random() < 0.75:
        return f"{'ABCDEFGHIJKLMNO'[rng.randrange(15)]}{rng.randrange(1, 16)}"
    return f"R{rng.randrange(1, seats + 1)}.{rng.randrange(1, 8)}"


def tile(rng: random.Random) -> str:
    """A tile of the set (``LETTER.COPY``) or, now and then, a hex UID."""
    if rng.random() < 0.2:
        return bytes(rng.randrange(256) for _ in range(rng.choice((4, 7, 10)))).hex().upper()
    counts = get_tile_set(TILE_SET).counts
    letter = rng.choice(sorted(counts))
    return f"{letter}.{rng.randrange(counts[letter])}"


def small(rng: random.Random, most: float = 1.0) -> str:
    return f"{rng.uniform(0, most):.3g}"


def board_command(rng: random.Random, seats: int = SEATS) -> str:
    """A good board command (as the control socket and the table scripts take it)."""
    loc, other = board_loc(rng, seats), board_loc(rng, seats)
    return rng.choice([
        lambda: f"place {loc} {tile(rng)}" if rng.random() < 0.8 else f"place {loc} 04A1B2C3",
        lambda: f"remove {loc}",
        lambda: f"move {loc} {other}",
        lambda: f"slide {loc} {other}" + (f" {small(rng, 0.3)}" if rng.random() < 0.5 else ""),
        lambda: f"flicker {loc} {rng.choice(['0', '0.5', 'alternate'])}",
        lambda: f"junk {loc} {small(rng)}",
        lambda: f"garbage {rng.randrange(200)}",
        lambda: f"{rng.choice(['corrupt', 'drop', 'duplicate', 'reorder'])} {rng.randrange(4)}",
        lambda: f"unplug {small(rng, 0.5)}" + (" reboot" if rng.random() < 0.3 else ""),
        lambda: "reboot",
        lambda: f"fault reader {rng.randrange(15 + seats)}" + rng.choice(["", " dead", " garbage"]),
        lambda: f"recover reader {rng.randrange(15 + seats)}",
    ])()


class Lying:
    """Where the tiles of a generated table script lie, so that its board lines are good ones:
    the script checker follows the tiles too (a move from an empty location, a tile placed
    where another lies or while it lies elsewhere are bad lines)."""

    def __init__(self) -> None:
        self.on: dict[str, str] = {}  # location -> the tile on it, as written

    def command(self, rng: random.Random, seats: int = SEATS) -> str:
        """A good board command here: a place, remove, move or slide that fits, or another."""
        loc, other = board_loc(rng, seats), board_loc(rng, seats)
        roll = rng.random()
        if roll < 0.4 or (roll < 0.7 and not self.on):
            name = tile(rng) if rng.random() < 0.8 else "04A1B2C3"
            where = next((at for at, t in self.on.items() if t.upper() == name.upper()), None)
            if where is not None:
                return f"place {where} {name}"  # where it lies: nothing happens
            if loc in self.on:
                del self.on[loc]
                return f"remove {loc}"
            self.on[loc] = name
            return f"place {loc} {name}"
        if roll < 0.7:
            src = rng.choice(sorted(self.on))
            if other in self.on and other != src:
                del self.on[other]
                return f"remove {other}"
            self.on[other] = self.on.pop(src)
            if rng.random() < 0.5:
                return f"move {src} {other}"
            return f"slide {src} {other}" + (f" {small(rng, 0.3)}" if rng.random() < 0.5 else "")
        if roll < 0.8:
            self.on.pop(loc, None)
            return f"remove {loc}"
        command = board_command(rng, seats)
        while command.split()[0] in ("place", "remove", "move", "slide"):
            command = board_command(rng, seats)
        return command


def script_line(rng: random.Random, seats: int = SEATS, lying: Lying | None = None) -> str:
    """A good table script line, with a short time in front now and then (its board lines
    fit where ``lying`` says the tiles are, and move them there)."""
    lying = lying or Lying()
    seat = rng.randrange(1, seats + 1)
    body = rng.choice([
        lambda: f"press {seat} {rng.choice(ROLES)}" + rng.choice(["", " long", f" {rng.uniform(0.05, 2):.2f}"]),
        lambda: "press menu" + rng.choice(["", " long"]),
        lambda: f"hold {seat} {rng.choice(ROLES)} {rng.uniform(0.05, 1):.2f}",
        lambda: f"hold menu {rng.uniform(0.05, 1):.2f}",
        lambda: "tick",
        lambda: lying.command(rng, seats),
        lambda: lying.command(rng, seats),
    ])()
    when = rng.random()
    if when < 0.2:
        body = f"after {small(rng)} {body}"
    elif when < 0.25:
        body = f"at {small(rng, 5)} {body}"
    return body + ("  # a comment" if rng.random() < 0.1 else "")


def mutate(rng: random.Random, line: str) -> str:
    """``line`` with one thing wrong with it (or, by chance, still right)."""
    words = line.split()
    kind = rng.randrange(8)
    if kind == 0 and words:
        words[rng.randrange(len(words))] = rng.choice(ODD_NUMBERS)
    elif kind == 1 and words:
        words[rng.randrange(len(words))] = rng.choice(ODD_WORDS)
    elif kind == 2 and words:
        del words[rng.randrange(len(words))]
    elif kind == 3 and words:
        i = rng.randrange(len(words))
        words.insert(i, words[i])
    elif kind == 4:
        i = rng.randrange(len(line) + 1)
        return line[:i] + rng.choice(ODD_CHARS) + line[i:]
    elif kind == 5:
        return line[: rng.randrange(len(line) + 1)]
    elif kind == 6 and words:
        words[rng.randrange(len(words))] *= rng.choice((2, 50, 2000))
    else:
        return line.upper() if rng.random() < 0.5 else line.swapcase()
    return " ".join(words)


def table_script(rng: random.Random, lines: int = 12, bad: float = 0.3) -> bytes:
    """A table script of ``lines`` lines, each mutated with probability ``bad``; bytes, as
    read from a file (now and then a byte that makes it no UTF-8)."""
    lying = Lying()
    out = [mutate(rng, script_line(rng, lying=lying)) if rng.random() < bad else script_line(rng, lying=lying) for _ in range(lines)]
    if rng.random() < 0.3:
        out.append("end")
    data = bytearray("\n".join(out).encode("utf-8"))
    if rng.random() < 0.1 and data:
        data[rng.randrange(len(data))] = rng.choice((0xFF, 0xC3, 0x80, 0x00))
    if rng.random() < 0.1:
        data = data.replace(b"\n", b"\r\n")
    return bytes(data)


def request(rng: random.Random, bad: float = 0.5) -> bytes:
    """One control request line (no newline in it); never ``exit``."""
    roll = rng.random()
    if roll < 0.15:
        line = f"advance {rng.choice(['0', '0.05', small(rng, 0.5), '10', '10.5', '1e6', 'inf', '-1', 'x'])}"
    elif roll < 0.25:
        line = rng.choice(["ping", "tags", "", "   ", "# nothing", "at 1 ping", "after 2 remove H8"])
    else:
        line = board_command(rng, 4)
    if rng.random() < bad:
        line = mutate(rng, line)
    data = line.replace("\n", " ").replace("\r", " ").encode("utf-8")
    if rng.random() < 0.05:
        data += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))).replace(b"\n", b"")
    if rng.random() < 0.02:
        data = b"x" * rng.choice((1024, 1025, 5000, 70_000))
    if data.split(b"#", 1)[0].strip().lower().split(b" ")[:1] == [b"exit"]:
        return b"ping"
    return data

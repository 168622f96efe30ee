"""Property tests of the board link's parser and host engine on hostile byte streams.

A scripted controller sends HELLO, then SNAPSHOT, CHANGES and HEARTBEAT frames; each frame is
kept, has up to 3 bits flipped, is truncated or is duplicated, with garbage between frames,
and the stream arrives in reads of random sizes. FrameParser and BoardLink must never raise,
never decode a frame that was not sent, recover every frame that arrived intact, and never
report a board the controller did not have at that point of the stream.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.board.link import BoardLink, LinkStats, SnapshotReceived
from drivers.board.protocol import (
    Area,
    Changes,
    Frame,
    FrameParser,
    FrameType,
    Heartbeat,
    Hello,
    Loc,
    Message,
    Snapshot,
    decode_payload,
    encode,
    encode_frame,
)

HELLO = Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 32, bytes.fromhex("E66118604B2D3A2F"))

locations = st.one_of(
    st.integers(0, 224).map(lambda i: Loc(Area.BOARD, i)),
    st.builds(Loc.slot, st.integers(0, HELLO.racks - 1), st.integers(0, HELLO.slots - 1)),
)  # (the HELLO's geometry: a slot outside it is a bad payload, tests/test_board_link_rules.py)
uids = st.binary(min_size=7, max_size=7) | st.binary(min_size=4, max_size=4)
boards = st.dictionaries(locations, uids, max_size=12)


@dataclass
class Script:
    """What the controller sent: messages (seq = index) and its board after each sweep."""

    messages: list[Message]
    board_at: dict[int, dict[Loc, bytes]]


@st.composite
def scripts(draw: st.DrawFn) -> Script:
    board = draw(boards)
    messages: list[Message] = [HELLO, Snapshot(1, tuple(sorted(board.items())))]
    board_at = {1: dict(board)}
    for sweep in range(2, draw(st.integers(2, 14))):
        kind = draw(st.sampled_from(["changes", "changes", "snapshot", "heartbeat"]))
        if kind == "changes":
            changes = draw(st.dictionaries(locations, uids | st.just(b""), min_size=1, max_size=4))
            for loc, uid in changes.items():
                if uid:
                    board[loc] = uid
                else:
                    board.pop(loc, None)
            messages.append(Changes(sweep, tuple(sorted(changes.items()))))
        elif kind == "snapshot":
            messages.append(Snapshot(sweep, tuple(sorted(board.items()))))
        else:
            messages.append(Heartbeat(sweep, sweep * 100, 180, 0))
        board_at[sweep] = dict(board)
    return Script(messages, board_at)


@st.composite
def mangled(draw: st.DrawFn, frame: bytes) -> tuple[bytes, int]:
    """``frame`` kept, with 1-3 bits flipped, truncated or duplicated; and how often it is intact."""
    how = draw(st.sampled_from(["keep", "flip", "truncate", "duplicate"]))
    if how == "keep":
        return frame, 1
    if how == "duplicate":
        return frame + frame, 2
    if how == "truncate":
        return frame[:draw(st.integers(1, len(frame) - 1))], 0
    out = bytearray(frame)
    positions = draw(st.lists(st.integers(0, len(frame) * 8 - 1), min_size=1, max_size=3, unique=True))
    for bit in positions:
        out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out), 0


@dataclass
class Stream:
    data: bytes
    intact: list[Frame]  # frames that arrived unharmed, in order
    cuts: list[int]  # read sizes


@st.composite
def streams(draw: st.DrawFn, script: Script, corrupt: bool = True) -> Stream:
    data = bytearray()
    intact = []
    for seq, msg in enumerate(script.messages):
        data += draw(st.binary(max_size=24))  # garbage, zeros included
        frame = encode(msg, seq)
        piece, copies = draw(mangled(frame)) if corrupt else (frame, 1)
        data += piece
        parsed = FrameParser().feed(frame)[0]
        intact += [parsed] * copies
    data += draw(st.binary(max_size=24))
    cuts = draw(st.lists(st.integers(1, 300), max_size=20))
    return Stream(bytes(data), intact, cuts)


def chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    out, i = [], 0
    for n in cuts:
        out.append(data[i:i + n])
        i += n
    out.append(data[i:])
    return out


def sent_frames(script: Script) -> set[Frame]:
    return {f for seq, msg in enumerate(script.messages) for f in FrameParser().feed(encode(msg, seq))}


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_the_parser_never_decodes_a_frame_that_was_not_sent(data: st.DataObject) -> None:
    script = data.draw(scripts())
    stream = data.draw(streams(script))
    parser = FrameParser()
    got = [f for chunk in chunks(stream.data, stream.cuts) for f in parser.feed(chunk)]
    sent = sent_frames(script)
    assert all(f in sent for f in got)
    assert [f for f in got if f in stream.intact] == stream.intact  # every intact frame, in order
    snapshots = {m for m in script.messages if isinstance(m, Snapshot)}
    for f in got:
        if f.type == FrameType.SNAPSHOT:
            assert decode_payload(f.type, f.payload) in snapshots


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_the_link_never_reports_a_board_that_was_not_sent(data: st.DataObject) -> None:
    script = data.draw(scripts())
    stream = data.draw(streams(script))
    link = BoardLink()
    events = []
    for i, chunk in enumerate(chunks(stream.data, stream.cuts)):
        events += link.feed(chunk, i * 0.01)
        events += link.tick(i * 0.01)
    reports = [e.snapshot for e in events if isinstance(e, SnapshotReceived)]
    sweeps = [r.sweep for r in reports]
    assert sweeps == sorted(set(sweeps))  # never twice, never back in time
    for report in reports:
        assert dict(report.tags) == script.board_at[report.sweep]


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_a_clean_stream_with_garbage_between_frames_delivers_every_board(data: st.DataObject) -> None:
    script = data.draw(scripts())
    stream = data.draw(streams(script, corrupt=False))
    link = BoardLink()
    events = [e for chunk in chunks(stream.data, stream.cuts) for e in link.feed(chunk, 0.0)]
    reports = [e.snapshot for e in events if isinstance(e, SnapshotReceived)]
    assert [r.sweep for r in reports] == sorted(script.board_at)
    assert [dict(r.tags) for r in reports] == [script.board_at[s] for s in sorted(script.board_at)]
    assert link.stats.sequence_errors == 0  # (garbage may be counted as a bad CRC: eleven 01 bytes decode to a body)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2000), st.lists(st.integers(1, 500), max_size=10))
def test_random_bytes_never_raise_and_never_make_a_board(noise: bytes, cuts: list[int]) -> None:
    parser = FrameParser()
    for chunk in chunks(noise, cuts):
        parser.feed(chunk)
    link = BoardLink()
    link.feed(encode(HELLO, 0), 0.0)
    events = [e for chunk in chunks(noise, cuts) for e in link.feed(chunk, 0.0)]
    assert not any(isinstance(e, SnapshotReceived) for e in events)
    assert isinstance(link.stats, LinkStats)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=60)), max_size=12))
def test_any_well_framed_payload_never_raises(frames: list[tuple[int, int, bytes]]) -> None:
    # CRC-valid frames of any type, seq and payload reach the decoder and the host's rules
    link = BoardLink()
    link.feed(encode(HELLO, 0), 0.0)
    for i, (kind, seq, payload) in enumerate(frames):
        link.feed(encode_frame(kind, seq, payload), i * 0.1)
        link.tick(i * 0.1)
    stats = link.stats
    assert stats.frames == len(frames) + 1 and stats.crc_errors == 0

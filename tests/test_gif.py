"""The streamed GIF of captured frames: what it shows, unreadable frames, bounded memory."""

from __future__ import annotations

import io
import logging
import tracemalloc
from pathlib import Path

import pytest
from PIL import GifImagePlugin, Image, ImageChops, ImageDraw

from scoreboard.gif import GIF_SCALE, frame_files, write_gif


def panel(n: int) -> Image.Image:
    """A distinct 128x64 panel for each ``n`` (a number and a moving bar)."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.text((2 + n % 80, 5 + n % 40), str(n), fill=1)
    draw.rectangle((n % 120, 60, n % 120 + 7, 63), fill=1)
    return image


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.convert("RGB").save(out, "PNG")  # as the capture writes them: RGB
    return out.getvalue()


def write_frames(folder: Path, images: list[Image.Image]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, image in enumerate(images, 1):
        (folder / f"screen-1-{i:06}.png").write_bytes(png(image))


def shown(gif: Path) -> list[tuple[Image.Image, int]]:
    """Each frame of ``gif`` as Pillow composes it, with its duration."""
    with Image.open(gif) as opened:
        assert isinstance(opened, GifImagePlugin.GifImageFile) and opened.info.get("loop") == 0
        frames = []
        for i in range(opened.n_frames):
            opened.seek(i)
            frames.append((opened.convert("L"), opened.info["duration"]))
        return frames


def scaled(image: Image.Image) -> Image.Image:
    return image.convert("L").resize((image.width * GIF_SCALE, image.height * GIF_SCALE), Image.Resampling.NEAREST)


def same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a, b).getbbox() is None


def test_the_gif_shows_every_frame_and_merges_repeats(tmp_path: Path) -> None:
    images = [panel(0), panel(1), panel(1), panel(1), panel(2), panel(0), panel(3)]
    write_frames(tmp_path / "screens", images)
    assert write_gif(tmp_path / "screens", tmp_path / "screens.gif", frame_ms=500)
    frames = shown(tmp_path / "screens.gif")
    expected = [(panel(0), 500), (panel(1), 1500), (panel(2), 500), (panel(0), 500), (panel(3), 500)]
    assert [ms for _, ms in frames] == [ms for _, ms in expected]
    for (got, _), (want, _) in zip(frames, expected, strict=True):
        assert got.size == (want.width * GIF_SCALE, want.height * GIF_SCALE) and same(got, scaled(want))
    assert not list(tmp_path.glob("*.part"))


def test_an_unreadable_frame_is_skipped_and_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    screens = tmp_path / "screens"
    write_frames(screens, [panel(n) for n in range(5)])
    (screens / "screen-1-000002.png").write_bytes(b"")  # what a kill mid-write used to leave
    whole = (screens / "screen-1-000004.png").read_bytes()
    (screens / "screen-1-000004.png").write_bytes(whole[: len(whole) // 2])  # truncated
    with caplog.at_level(logging.WARNING, logger="scoreboard.gif"):
        assert write_gif(screens, tmp_path / "screens.gif")
    frames = shown(tmp_path / "screens.gif")
    assert len(frames) == 3
    for (got, _), n in zip(frames, [0, 2, 4], strict=True):
        assert same(got, scaled(panel(n)))
    logged = caplog.text
    assert "screen-1-000002.png" in logged and "screen-1-000004.png" in logged
    assert "2 unreadable frame(s) skipped" in logged


def test_no_readable_frame_no_gif(tmp_path: Path) -> None:
    screens = tmp_path / "screens"
    assert not write_gif(screens, tmp_path / "screens.gif")  # no folder at all
    screens.mkdir()
    assert not write_gif(screens, tmp_path / "screens.gif")
    (screens / "screen-1-000001.png").write_bytes(b"")
    assert not write_gif(screens, tmp_path / "screens.gif")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["screens"]


def test_frame_order(tmp_path: Path) -> None:
    for name in ["screen-1-000010.png", "screen-1-000009.png", "screen-2-000001.png", "screen-1-000012.png",
                 "zz.png", "a.png", "screen-1-000013.png.part", "notes.txt", "screen-1-1000000.png"]:
        (tmp_path / name).write_bytes(b"")
    assert [Path(p).name for p in frame_files(tmp_path)] == [
        "screen-1-000009.png", "screen-1-000010.png", "screen-1-000012.png",  # 11 is missing: passed over
        "screen-1-1000000.png", "screen-2-000001.png", "a.png", "zz.png",
    ]


def peak_bytes(screens: Path, gif: Path) -> int:
    tracemalloc.start()
    try:
        assert write_gif(screens, gif)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_frames(tmp_path: Path) -> None:
    # Holding every frame (as Pillow's save_all does) took ~1.6 kB of Python objects a frame
    # here (about 10x from 200 to 2000 frames, besides Pillow's own pixel buffers).
    encoded = [png(panel(n)) for n in range(40)]
    peaks = []
    for count in (3, 200, 2000):  # 3: the imports and caches of a first run, not counted
        screens = tmp_path / f"screens-{count}"
        screens.mkdir()
        for i in range(count):
            (screens / f"screen-1-{i + 1:06}.png").write_bytes(encoded[i % len(encoded)])
        peaks.append(peak_bytes(screens, tmp_path / f"{count}.gif"))
        with Image.open(tmp_path / f"{count}.gif") as gif:
            assert isinstance(gif, GifImagePlugin.GifImageFile) and gif.n_frames == count
    _, small, large = peaks
    assert large < 1.5 * small, f"peak {small} bytes for 200 frames, {large} for 2000"

"""drivers/display with luma's dummy device and luma.emulator's capture device."""

from __future__ import annotations

import dataclasses
import gc
import tracemalloc
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from drivers.display import (
    DisplayError,
    Multiplexer,
    make_display,
    make_displays,
)
from scoreboard.config import Config, ConfigError, DisplayConfig, UiConfig, load_config
from scoreboard.screens import PlayerLine, ScoresScreen, render


def config(**display: object) -> Config:
    return Config(display=DisplayConfig(**display))  # type: ignore[arg-type]


def scores(score: int) -> Image.Image:
    return render(ScoresScreen((PlayerLine("Anna", score, is_turn=True), PlayerLine("Ben", 0)), 86), "en")


class FakeBus:
    """Records the bytes written, as smbus2's write_byte would send them."""

    def __init__(self) -> None:
        self.writes: list[tuple[int, int]] = []

    def write_byte(self, i2c_addr: int, value: int) -> None:
        self.writes.append((i2c_addr, value))


def same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.logical_xor(a.convert("1"), b.convert("1")).getbbox() is None


def test_dummy_pushes_only_changed_images() -> None:
    with make_display(config(driver="dummy")) as display:
        assert display.show(scores(10)) is True
        assert same(display.device.image, scores(10))
        assert display.show(scores(10)) is False  # same pixels, a new image object
        assert display.pushes == 1
        assert display.show(scores(11)) is True
        assert display.pushes == 2 and same(display.device.image, scores(11))
        assert display.show(scores(10)) is True  # back to an earlier image is a change
        assert display.pushes == 3


def test_show_converts_and_checks_the_size() -> None:
    display = make_display(config(driver="dummy"))
    assert display.show(scores(1).convert("L"))
    assert display.image is not None and display.image.mode == "1"
    with pytest.raises(ValueError, match="not 128x64"):
        display.show(Image.new("1", (64, 32)))


def test_rotate_is_passed_to_luma() -> None:
    display = make_display(config(driver="dummy", rotate=2))
    display.show(scores(5))
    assert same(display.device.image, scores(5).rotate(180))


def test_capture_writes_png_frames(tmp_path: Path) -> None:
    pytest.importorskip("luma.emulator")
    display = make_display(config(driver="capture"), capture_dir=tmp_path)
    display.show(scores(1))
    display.show(scores(1))
    display.show(scores(2))
    frames = sorted(tmp_path.glob("*.png"))
    assert [f.name for f in frames] == ["screen-1-000001.png", "screen-1-000002.png"]
    with Image.open(frames[1]) as frame:
        assert frame.size == (128, 64) and same(frame, scores(2))


def test_capture_numbers_on_after_the_frames_already_there(tmp_path: Path) -> None:
    pytest.importorskip("luma.emulator")
    (tmp_path / "screen-1-000007.png").write_bytes(b"")  # a frame of an earlier run
    (tmp_path / "screen-2-000020.png").write_bytes(b"")  # another seat's
    display = make_display(config(driver="capture"), capture_dir=tmp_path)
    display.show(scores(3))
    with Image.open(tmp_path / "screen-1-000008.png") as frame:
        assert same(frame, scores(3))


def test_a_capture_that_fails_mid_write_leaves_no_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("luma.emulator")
    display = make_display(config(driver="capture"), capture_dir=tmp_path)
    display.show(scores(1))

    def killed(image: Image.Image, fp: str, format: str | None = None) -> None:
        Path(fp).write_bytes(b"\x89PNG half a frame")
        raise OSError("killed mid-write")

    monkeypatch.setattr(Image.Image, "save", killed)
    with pytest.raises(OSError, match="killed mid-write"):
        display.show(scores(2))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["screen-1-000001.png"]  # whole frames only


def test_capture_keeps_nothing_per_frame(tmp_path: Path) -> None:
    # pygame's save to a file object kept ~0.9 kB a frame: 16 MiB over a 2-hour game
    pytest.importorskip("luma.emulator")
    display = make_display(config(driver="capture"), capture_dir=tmp_path)
    images = [scores(n) for n in range(50)]
    for image in images[:2]:
        display.show(image)  # first-use caches
    tracemalloc.start()
    try:
        for n in range(300):
            display.show(images[n % len(images)])
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(list(tmp_path.glob("*.png"))) == 302
    assert kept < 50_000, f"{kept} bytes kept after 300 frames"


def test_seat_displays_select_their_mux_channel_before_each_push() -> None:
    bus = FakeBus()
    displays = make_displays(
        config(driver="dummy", mux_address=0x70, seat_channels=(0, 3)), bus=bus
    )
    assert len(displays) == 2
    assert bus.writes == [(0x70, 0b1), (0x70, 0b1000)]  # each panel's init on its channel
    bus.writes.clear()
    displays[1].show(scores(1))
    displays[0].show(scores(2))
    displays[0].show(scores(2))  # unchanged: neither selected nor pushed
    assert bus.writes == [(0x70, 0b1000), (0x70, 0b1)]


def test_seat_channels_need_a_mux() -> None:
    with pytest.raises(DisplayError, match="mux_address"):
        make_displays(config(driver="dummy", seat_channels=(0, 1)))


def test_multiplexer_rejects_bad_channels() -> None:
    mux = Multiplexer(FakeBus())
    with pytest.raises(ValueError, match="8"):
        mux.select(8)


def test_real_driver_without_a_bus_is_a_display_error() -> None:
    with pytest.raises(DisplayError, match="i2c-99"):
        make_display(config(driver="ssd1306", port=99))


def test_display_and_ui_config() -> None:
    assert Config().display == DisplayConfig("ssd1306", 0x3C, 1, 0, 0, ())
    assert Config().ui == UiConfig("auto")
    loaded = load_config(
        overrides=[
            "display.driver=sh1106",
            "display.address=0x3D",
            "display.mux_address=0x70",
            "display.seat_channels=[2, 3]",
            "ui.language=fr",
        ]
    )
    assert loaded.display == DisplayConfig("sh1106", 0x3D, 1, 0, 0x70, (2, 3))
    assert loaded.ui.language == "fr"
    assert dataclasses.replace(loaded, source=None) != Config()


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("display.driver=ssd1309", 'did you mean "ssd1306"'),
        ("display.address=0x80", "0x03 to 0x77"),
        ("display.address=0", "0x03 to 0x77"),
        ("display.seat_channels=[8]", "channel 1"),
        ("display.seat_channels=[0, 1, 2, 3, 4]", "up to 4"),
        ("ui.language=it", '"de", "fr" or "en"'),
    ],
)
def test_display_and_ui_config_errors(item: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(overrides=[item])


def test_closing_seat_displays_switches_off_each_panel_once() -> None:
    bus = FakeBus()
    displays = make_displays(config(driver="dummy", mux_address=0x70, seat_channels=(0, 3, 5)), bus=bus)
    bus.writes.clear()
    for d in displays:
        d.close()
        d.close()  # a second close does nothing
    assert bus.writes == [(0x70, 1 << 0), (0x70, 1 << 3), (0x70, 1 << 5)]

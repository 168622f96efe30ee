"""drivers/display with luma's dummy device and our PNG capture device."""

from __future__ import annotations

import dataclasses
import gc
import os
import tracemalloc
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from drivers.display import capture
from drivers.display.oled import (
    DisplayError,
    FrameSizeError,
    GpiozeroLines,
    Multiplexer,
    make_device,
    make_display,
    make_displays,
)
from drivers.display.panels import PANELS, RECOMMENDED
from scoreboard.config import Config, ConfigError, DisplayConfig, UiConfig, load_config
from scoreboard.screens import PlayerLine, ScoresScreen, render


def config(**display: object) -> Config:
    display.setdefault("panel", "0.96in")
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
    with pytest.raises(FrameSizeError, match="not 128x64") as raised:
        display.show(Image.new("1", (64, 32)))
    assert raised.value.size == (64, 32) and raised.value.panel == (128, 64)


def test_rotate_is_passed_to_luma() -> None:
    display = make_display(config(driver="dummy", rotate=2))
    display.show(scores(5))
    assert same(display.device.image, scores(5).rotate(180))


def test_capture_writes_png_frames(tmp_path: Path) -> None:
    display = make_display(config(driver="capture"), capture_dir=tmp_path)
    display.show(scores(1))
    display.show(scores(1))
    display.show(scores(2))
    frames = sorted(tmp_path.glob("*.png"))
    assert [f.name for f in frames] == ["screen-1-000001.png", "screen-1-000002.png"]
    with Image.open(frames[1]) as frame:
        assert frame.size == (128, 64) and same(frame, scores(2))


def test_capture_numbers_on_after_the_frames_already_there(tmp_path: Path) -> None:
    (tmp_path / "screen-1-000007.png").write_bytes(b"")  # a frame of an earlier run
    (tmp_path / "screen-2-000020.png").write_bytes(b"")  # another seat's
    display = make_display(config(driver="capture"), capture_dir=tmp_path)
    display.show(scores(3))
    with Image.open(tmp_path / "screen-1-000008.png") as frame:
        assert same(frame, scores(3))


def test_a_capture_that_fails_mid_write_leaves_no_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    display = make_display(config(driver="capture"), capture_dir=tmp_path)
    display.show(scores(1))

    def killed(source: str, target: str) -> None:
        Path(source).write_bytes(b"\x89PNG half a frame")
        raise OSError("killed mid-write")

    monkeypatch.setattr(os, "replace", killed)  # (the rename into place: the frame is not whole yet)
    with pytest.raises(OSError, match="killed mid-write"):
        display.show(scores(2))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["screen-1-000001.png"]  # whole frames only


@pytest.mark.parametrize("size", [(1, 1), (128, 64), (256, 64), (3, 5)])
def test_the_png_written_is_the_frame(size: tuple[int, int]) -> None:
    import io
    import random

    rng = random.Random(size[0] * 1000 + size[1])
    frame = Image.frombytes("RGB", size, bytes(rng.randrange(256) for _ in range(3 * size[0] * size[1])))
    with Image.open(io.BytesIO(capture.png_bytes(frame))) as read:
        assert read.format == "PNG" and read.mode == "RGB" and read.tobytes() == frame.tobytes()


def test_a_png_frame_is_written_from_rgb_only() -> None:
    with pytest.raises(ValueError, match="not '1'"):
        capture.png_bytes(Image.new("1", (8, 8)))


def test_capture_keeps_nothing_per_frame(tmp_path: Path) -> None:
    # pygame's save to a file object kept ~0.9 kB a frame: 16 MiB over a 2-hour game
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
        make_display(config(driver="ssd1306", port=99, interface="i2c"))


def test_display_and_ui_config() -> None:
    assert Config().display == DisplayConfig(driver="ssd1322", panel="auto", interface="auto")
    assert Config().display.chosen_panel() is PANELS[RECOMMENDED] and Config().display.chosen_interface() == "spi"
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
    assert loaded.display == DisplayConfig(driver="sh1106", address=0x3D, mux_address=0x70, seat_channels=(2, 3))
    assert loaded.display.chosen_panel() is PANELS["1.3in"] and loaded.display.chosen_interface() == "i2c"
    assert loaded.ui.language == "fr"
    assert dataclasses.replace(loaded, source=None) != Config()


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("display.driver=sdd1306", 'did you mean "ssd1306"'),
        ("display.panel=2.4in", '"auto", "0.96in", "1.3in", "2.42in" or "3.12in"'),
        ("display.spi_hz=16000000", "8000000"),
        ("display.gpio_dc=28", "0 to 27"),
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


@pytest.mark.parametrize(
    ("items", "key", "message"),
    [
        (["display.driver=ssd1306", "display.panel=3.12in"], "display.panel", "ssd1322 controller, not ssd1306"),
        (["display.interface=i2c"], "display.interface", "no I2C bus"),
        (["display.driver=ssd1309", "display.interface=spi", "display.mux_address=0x70",
          "display.seat_channels=[0, 1]"], "display.seat_channels", "I2C panels"),
        (["display.gpio_dc=10"], "display.gpio_dc", "SPI 0 MOSI"),
        (["display.gpio_rst=24"], "display.gpio_rst", "display.gpio_dc"),
        (["display.spi_device=2"], "display.spi_device", "no chip select CE2"),
        (["buttons.menu=25"], "buttons.menu", r"display's \(display.gpio_rst\)"),
        (["display.gpio_dc=26"], "display.gpio_dc", r"a button's \(buttons.menu\)"),
        (["display.spi_port=1"], "display.spi_port", "SPI 1 MISO"),
        (["display.spi_port=1", "display.spi_device=1", "buttons.challenge=[27, 23, 6, 12]"], "display.spi_port",
         "SPI 1 CE1"),
        (["display.gpio_dc=26", "buttons.menu=26"], "display.gpio_dc", "GPIO26 is both"),
        (["display.gpio_dc=25"], "display.gpio_dc", "--set: display.gpio_dc: GPIO25 is both display.gpio_dc and"),
        (["display.gpio_dc=0"], "display.gpio_dc", "HAT ID EEPROM"),
        (["display.gpio_rst=1"], "display.gpio_rst", "HAT ID EEPROM"),
        (["display.rotate=1"], "display.rotate", "use 0 or 2"),
        (["display.driver=ssd1309", "display.panel=1.3in"], "display.panel", "sh1106 or ssd1306 controller"),
    ],
)
def test_panel_interface_and_spi_pins_are_checked(items: list[str], key: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        load_config(overrides=items)
    assert raised.value.key == key


def test_what_the_pin_checks_leave_free() -> None:
    """SPI1 with CE0 leaves CE1 (GPIO17, seat 1's Done) free; a 1.3in module with an SSD1306."""
    loaded = load_config(overrides=["display.spi_port=1", "buttons.challenge=[27, 23, 6, 12]"])
    assert loaded.display.spi_port == 1 and 17 in loaded.buttons.done
    loaded = load_config(overrides=["display.driver=ssd1306", "display.panel=1.3in"])
    assert loaded.display.chosen_panel() is PANELS["1.3in"] and loaded.display.chosen_interface() == "i2c"


def test_auto_panels_follow_the_controller_and_the_emulated_ones_are_the_recommended() -> None:
    for name, panel in PANELS.items():
        assert load_config(overrides=[f"display.driver={panel.controller}"]).display.chosen_panel() is panel
        assert load_config(overrides=[f"display.panel={name}", "display.driver=dummy"]).display.chosen_panel() is panel
    assert load_config(overrides=["display.driver=capture"]).display.chosen_panel() is PANELS[RECOMMENDED]


@pytest.mark.parametrize("name", list(PANELS))
def test_dummy_and_capture_devices_have_the_panels_size(name: str, tmp_path: Path) -> None:
    panel = PANELS[name]
    display = make_display(config(driver="dummy", panel=name))
    assert display.panel is panel and (display.device.width, display.device.height) == panel.size
    image = render(ScoresScreen((PlayerLine("Anna", 1, is_turn=True), PlayerLine("Ben", 0)), 86), "de", panel)
    assert display.show(image) and same(display.device.image, image)
    captured = make_display(config(driver="capture", panel=name), capture_dir=tmp_path / name)
    captured.show(image)
    with Image.open(next((tmp_path / name).glob("*.png"))) as frame:
        assert frame.size == panel.size


class FakeSpi:
    """spidev.SpiDev as luma uses it: records what is written."""

    def __init__(self) -> None:
        self.opened: tuple[int, int] | None = None
        self.written = 0
        self.closed = False
        self.max_speed_hz = 0
        self.mode = 0

    def open(self, port: int, device: int) -> None:
        self.opened = (port, device)

    def writebytes(self, data: list[int]) -> None:
        self.written += len(data)

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("name", ["3.12in", "2.42in"])
def test_spi_panels_are_driven_through_luma_with_gpiozero_lines(name: str) -> None:
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    panel = PANELS[name]
    factory, spi = MockFactory(), FakeSpi()
    cfg = config(driver=panel.controller, panel=name, interface="spi", spi_device=1, gpio_dc=24, gpio_rst=25)
    device = make_device(cfg.display, spi=spi, pin_factory=factory)
    assert spi.opened == (0, 1) and spi.max_speed_hz == 8_000_000
    before = spi.written
    pixels = panel.width * panel.height
    assert before >= (pixels // 2 if panel.greyscale else pixels // 8)  # cleared at start: 4 bits or 1 a pixel
    image = render(ScoresScreen((PlayerLine("Anna", 1, is_turn=True), PlayerLine("Ben", 0)), 86), "de", panel)
    device.display(image)
    assert spi.written > before
    assert factory.pin(24).state in (0, 1) and factory.pin(25).state == 1  # out of reset
    device.persist = True  # (passed on to the luma device)
    device.cleanup()
    assert spi.closed and factory.pin(25).function == "input"  # the lines are released


def test_gpiozero_lines_drive_and_release_pins() -> None:
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    lines = GpiozeroLines(factory)
    lines.setup(24, lines.OUT)
    lines.output(24, lines.HIGH)
    assert factory.pin(24).state == 1
    lines.output(24, lines.LOW)
    assert factory.pin(24).state == 0
    lines.cleanup(24)
    lines.cleanup()
    assert factory.pin(24).function == "input"

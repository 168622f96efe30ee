"""Helpers of the browser tests: ``scoreboard play`` as its own process, Debian's Chromium
driven by Playwright, and a player's hands on the page (drags, clicks, holds).

No browser is downloaded: Playwright drives ``/usr/bin/chromium`` (``apt-get install
chromium``; ``.ci/run`` installs it). Without it, or without the Playwright package, the
tests that need them are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tests" / "output" / "play"
CHROMIUM = Path(os.environ.get("SCOREBOARD_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]
PATIENCE = 30.0  # seconds a wait for the table may take before it counts as a hang


def need_browser() -> Any:
    """The Playwright sync API, or skip (with the reason) where it or Chromium is missing."""
    for module in ("starlette", "uvicorn"):
        pytest.importorskip(module, reason=f"{module} is missing: pip install 'scoreboard[play]'")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is missing: pip install playwright"
                                   " (the test extra has it)")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)")
    return sync_api


class PlayProcess:
    """``scoreboard play`` started with ``args``; :attr:`url` the page, :attr:`state` its journal."""

    def __init__(self, folder: Path, args: Sequence[str]) -> None:
        self.folder = folder
        self.state = folder / "state"
        self.log = open(folder / "play.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scoreboard.cli", "play", "--no-browser", "--port", "0", "--state", str(folder),
             *args],
            stdout=subprocess.PIPE, stderr=self.log, cwd=ROOT,
        )
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline().decode()
        if not first.startswith("the table: "):
            self.stop()
            raise AssertionError(f"scoreboard play did not start: {first!r}; {(folder / 'play.log').read_text()}")
        self.url = first.split(": ", 1)[1].strip()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


@contextmanager
def browser_page(sync_api: Any, url: str, width: int = 1500, height: int = 1400, scale: float = 1) -> Iterator[Any]:
    """A Chromium page on ``url`` in a window of ``width`` x ``height`` CSS pixels, ``scale``
    device pixels to one (its console errors fail the test)."""
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=PATIENCE * 1000)
        try:
            page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=scale)
            page.set_default_timeout(PATIENCE * 1000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_default_navigation_timeout(PATIENCE * 1000)
            page.goto(url)
            yield page
        finally:
            browser.close()
    assert not errors, f"the page's script failed: {errors}"


class Hands:
    """A player's hands on the page: drags of tiles, presses of buttons, and waits for the table."""

    def __init__(self, page: Any, shots: Path) -> None:
        self.page = page
        self.shots = shots
        shots.mkdir(parents=True, exist_ok=True)
        self.answered = 0

    # --- reading the page ---

    def js(self, expression: str) -> Any:
        return self.page.evaluate(expression)

    def view(self) -> dict[str, Any]:
        view = self.js("play.view")
        assert isinstance(view, dict)
        return view

    def tags(self) -> dict[str, str]:
        return dict(self.js("play.tags"))

    def wait(self, predicate: str, what: str, timeout: float = PATIENCE) -> None:
        """Wait until the page's ``predicate`` (JS, over ``play``) holds."""
        started = time.monotonic()
        if os.environ.get("PLAY_TIMING"):
            print(f"{time.monotonic():.2f} waiting for {what}")
        try:
            self.page.wait_for_function(f"() => {{ try {{ return Boolean({predicate}); }} catch (e) {{ return false; }} }}",
                                        timeout=timeout * 1000)
        except Exception as e:
            state = self.js("JSON.stringify({view: play.view, status: play.status, answers: play.answers.slice(-5)})")
            self.shot(f"failed-{what.replace(' ', '-')[:40]}")
            raise AssertionError(f"waiting for {what}: {e}\n{state}") from None
        if os.environ.get("PLAY_TIMING"):
            print(f"    {time.monotonic() - started:.2f} s")

    def answers(self) -> list[dict[str, Any]]:
        return list(self.js("play.answers"))

    def wait_answer(self) -> dict[str, Any]:
        """The answer to the last message sent (the page numbers them)."""
        self.wait("play.answers.length && play.answers[play.answers.length - 1].id === play.nextId - 1", "an answer")
        answer = self.answers()[-1]
        assert isinstance(answer, dict)
        return answer

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    # --- hands ---

    def _centre(self, selector: str) -> tuple[float, float]:
        found = self.page.locator(selector).first
        found.wait_for(state="visible")
        box = found.bounding_box()
        assert box is not None, f"nothing on the page at {selector}"
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def drag(self, source: str, target: str, ok: bool = True) -> dict[str, Any]:
        """Drag what is at ``source`` (a selector) onto ``target``; the table's answer."""
        x0, y0 = self._centre(source)
        x1, y1 = self._centre(target)
        mouse = self.page.mouse
        mouse.move(x0, y0)
        mouse.down()
        mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=3)
        mouse.move(x1, y1, steps=3)
        mouse.up()
        answer = self.wait_answer()
        if ok:
            assert answer["ok"], f"{source} -> {target}: {answer}"
        return answer

    def draw(self, loc: str, letter: str) -> None:
        """The tile ``letter`` from the bag onto rack slot ``loc``."""
        self.drag(f'#bag .tile[data-letter="{letter}"]', f'[data-loc="{loc}"]')
        self.wait(f'play.tags["{loc}"]', f"{letter} on {loc}")

    def move(self, src: str, dst: str) -> None:
        """The tile on ``src`` to ``dst`` (a cell, a slot, or ``bag``)."""
        target = "#bag-box" if dst == "bag" else f'[data-loc="{dst}"]'
        self.drag(f'[data-loc="{src}"] .tile', target)
        if dst == "bag":
            self.wait(f'!play.tags["{src}"]', f"{src} back in the bag")
        else:
            self.wait(f'play.tags["{dst}"] && !play.tags["{src}"]', f"{src} to {dst}")

    def settled(self, locs: Sequence[str]) -> None:
        """Wait until the service reads the tiles where they lie (the board controller's read)."""
        if not locs:
            return
        cond = " && ".join(f'play.view.reads["{loc}"] === play.tags["{loc}"]' for loc in locs)
        self.wait(cond, f"the board read at {', '.join(locs)}")

    def press(self, button: str, seat: int | None = None, hold: float = 0.0) -> None:
        """Press a seat's ``button`` (``done``, ``challenge``) or Menu (no seat); held ``hold`` s."""
        where = f'.btn[data-button="{button}"]' + (f'[data-seat="{seat}"]' if seat is not None else "")
        x, y = self._centre(where)
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        # held from when the service has closed the pin, not from when the page sent it: on a
        # loaded machine a press sent 0.2 s before its release could reach the pin a moment
        # before the release and be taken as a bounce
        self.wait("play.answers.length && play.answers[play.answers.length - 1].id === play.nextId - 1",
                  f"{button} pressed")
        time.sleep(max(hold, 0.2))
        self.page.mouse.up()
        self.wait("play.answers.length && play.answers[play.answers.length - 1].id === play.nextId - 1",
                  f"{button} released")
        answers = [a for a in self.answers()[-2:]]
        assert all(a["ok"] for a in answers), answers

    def click(self, selector: str) -> dict[str, Any]:
        self.page.click(selector)
        return self.wait_answer()


# --- what the panels show -------------------------------------------------------------------------------

WATCH_FRAMES = """(() => {
  // the frames the service pushed, per display, on a WebSocket of the test's own (not the page's script)
  if (window.testFrames) return;
  window.testFrames = {};
  const token = new URLSearchParams(location.search).get("token");
  const ws = new WebSocket(`ws://${location.host}/ws` + (token ? `?token=${encodeURIComponent(token)}` : ""));
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type !== "frame") return;
    const key = m.panel === null ? "table" : String(m.panel);
    const old = window.testFrames[key];
    if (!old || old.seq < m.seq) window.testFrames[key] = m;
  };
  window.testFramesSocket = ws;
})()"""


def watch_frames(page: Any) -> None:
    """From now on ``window.testFrames`` holds each display's last frame, as the service pushed it."""
    page.evaluate(WATCH_FRAMES)


def panel_difference(page: Any, key: str, frame: dict[str, Any]) -> tuple[int, Any, Any]:
    """How many device pixels of the panel ``key`` differ from ``frame`` scaled up by nearest
    neighbour (each panel pixel a square of the panel's whole scale); the shot and the frame scaled."""
    import base64
    import io

    from PIL import Image, ImageChops

    img = page.locator(f'img.panel[data-panel="{key}"]')
    img.scroll_into_view_if_needed(timeout=PATIENCE * 1000)
    box = img.evaluate("(e) => { const r = e.getBoundingClientRect(); return {scale: Number(e.dataset.scale),"
                       " x: r.left + e.clientLeft, y: r.top + e.clientTop, w: e.clientWidth, h: e.clientHeight,"
                       " ratio: window.devicePixelRatio}; }")
    k, ratio = box["scale"], box["ratio"]
    with Image.open(io.BytesIO(base64.b64decode(frame["png"]))) as png:
        want = png.convert("RGB").resize((png.width * k, png.height * k), Image.Resampling.NEAREST)
    shown = (round(box["w"] * ratio), round(box["h"] * ratio))
    assert shown == want.size, f"panel {key}: {shown} device pixels on the page, {want.size} at {k}x"
    with Image.open(io.BytesIO(page.screenshot(animations="disabled", timeout=PATIENCE * 1000))) as shot:
        whole = shot.convert("RGB")
    x, y = round(box["x"] * ratio), round(box["y"] * ratio)
    best: tuple[int, Any] = (want.width * want.height + 1, None)
    for dx, dy in ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0), (-1, -1), (1, 1), (-1, 1), (1, -1)):
        # (where a half-pixel position puts the panel: the picture must match exactly, at most 1 px aside)
        got = whole.crop((x + dx, y + dy, x + dx + want.width, y + dy + want.height))
        differ = sum(1 for v in ImageChops.difference(got, want).convert("L").tobytes() if v)
        best = min(best, (differ, got), key=lambda b: b[0])
    return best[0], best[1], want


def assert_panels_show_their_frames(page: Any, keys: Sequence[str], shots: Path, tries: int = 30) -> None:
    """Each panel ``key`` shows, pixel for pixel at a whole scale, the last frame the service
    pushed for that display (a seat's frame on another seat's panel fails)."""
    for key in keys:
        differ = -1
        for _ in range(tries):
            frame = page.evaluate(f"window.testFrames && window.testFrames[{json.dumps(key)}] || null")
            if frame is not None:
                differ, got, want = panel_difference(page, key, frame)
                if page.evaluate(f"window.testFrames[{json.dumps(key)}].seq") != frame["seq"]:
                    continue  # a new frame came meanwhile: again
                if differ == 0:
                    break
            time.sleep(0.1)
        else:
            if differ > 0:
                shots.mkdir(parents=True, exist_ok=True)
                got.save(shots / f"panel-{key}-shown.png")
                want.save(shots / f"panel-{key}-pushed.png")
            raise AssertionError(f"panel {key} does not show the frame the service pushed for it: {differ} pixels"
                                 " differ (-1: no frame came)")


# --- the German game's moves, by hand ----------------------------------------------------------------

LONG = 0.8  # seconds a long press is held (buttons.long_ms is 0.6 s here)
FAST = ["--set", "buttons.long_ms=600", "--set", "game.challenge_seconds=60"]
SEAT_PANELS = ["--set", "display.driver=sh1106", "--set", "display.mux_address=0x70",
               "--set", "display.seat_channels=[0, 1]"]


@pytest.fixture()
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="play-"))  # short: unix socket paths are short
    yield path
    shutil.rmtree(path, ignore_errors=True)


def begin(hands: Hands) -> None:
    """The draw for the first player (Anna's A beats Ben's E), the tiles back, the deal."""
    hands.wait('play.view && play.view.phase === "first-draw" && play.status.service === "running"', "the first draw")
    hands.draw("R1.1", "A")
    hands.draw("R2.1", "E")
    hands.wait('play.view.first_draw === null || play.view.phase !== "first-draw" || '
               'play.view.first_draw.letters.join("") === "AE"', "the draw read")
    hands.shot("01-first-draw")
    hands.move("R1.1", "bag")
    hands.move("R2.1", "bag")
    hands.wait('play.view.phase === "playing"', "the game to start")


def deal(hands: Hands, seat: int, letters: str) -> None:
    drawn = []
    for slot, letter in enumerate(letters, start=1):
        if not hands.tags().get(f"R{seat}.{slot}"):
            hands.draw(f"R{seat}.{slot}", letter)
            drawn.append(f"R{seat}.{slot}")
    hands.settled(drawn)


def refill(hands: Hands, seat: int, letters: str) -> None:
    """Draw ``letters`` into the seat's free slots."""
    free = [f"R{seat}.{s}" for s in range(1, 8) if f"R{seat}.{s}" not in hands.tags()]
    for loc, letter in zip(free, letters):
        hands.draw(loc, letter)
    # read by the service before anyone's next Done: a Done judged on a board read before the
    # draw lands is refused as "refill your rack" (the default ``refill = "block"``)
    hands.settled(free[:len(letters)])


def slot_of(hands: Hands, seat: int, letter: str) -> str:
    tiles = hands.js("play.hello.tiles")
    for loc, uid in sorted(hands.tags().items()):
        if loc.startswith(f"R{seat}.") and tiles[uid]["letter"] == letter:
            return loc
    raise AssertionError(f"no {letter} on seat {seat}'s rack: {hands.tags()}")


def lay(hands: Hands, seat: int, word: dict[str, str]) -> None:
    """Lay rack tiles on cells: {"H8": "H", ...}."""
    for cell, letter in word.items():
        hands.move(slot_of(hands, seat, letter), cell)
    hands.settled(list(word))


def haus(hands: Hands) -> None:
    """The first draw, the deal, and Anna's HAUS across the centre (10 points)."""
    begin(hands)
    deal(hands, 1, "HAUSTEN")
    deal(hands, 2, "?NDEIRT")
    lay(hands, 1, {"H8": "H", "I8": "A", "J8": "U", "K8": "S"})
    hands.press("done", 1)
    hands.wait('play.view.board["K8"] && play.view.scores[0] === 10', "HAUS scored")


def exported_gcg(state: Path) -> str:
    """``scoreboard export --format gcg`` of the latest game in ``state``."""
    done = subprocess.run([sys.executable, "-m", "scoreboard.cli", "export", "--format", "gcg", "--set",
                           f"paths.state_dir={state}"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def journal_result(state: Path) -> dict[str, Any]:
    from scoreboard.journal import Journal

    with Journal.open(state) as journal:
        info = journal.latest()
        assert info is not None and info.finished is not None, "no finished game in the journal"
        return dict(info.result or {})


def dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False)

"""``scoreboard play`` in Chromium, beyond the whole games (``test_play_browser.py``; a file of
its own so that the two test workers share the browser tests): four seats on a laptop's
screen with every panel pixel for pixel, and an earlier session resumed with its tiles.
Screenshots go to ``tests/output/play/``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from playhelpers import (  # noqa: F401 (folder: a fixture)
    FAST, OUTPUT, Hands, PlayProcess, assert_panels_show_their_frames, browser_page, folder, haus, need_browser,
    watch_frames,
)

FITS = "document.scrollingElement.scrollWidth <= window.innerWidth"


def test_four_seats_fit_a_laptop_and_every_panel_shows_its_own_frames(folder: Path) -> None:
    """1366 x 768, four players with a panel each: nothing sticks out sideways, the panels
    at a whole scale, each showing the frames the service pushed for its seat; at a device
    pixel ratio of 2 too."""
    sync_api = need_browser()
    shots = OUTPUT / "four-seats"
    shutil.rmtree(shots, ignore_errors=True)
    panels = ["--set", "display.driver=sh1106", "--set", "display.mux_address=0x70",
              "--set", "display.seat_channels=[0, 1, 2, 3]"]
    play = PlayProcess(folder, ["--rules", "en", "--players", "Anna,Ben,Cleo,Dan", "--seed", "1", *FAST, *panels])
    keys = ["0", "1", "2", "3"]
    try:
        for scale in (1, 2):
            with browser_page(sync_api, play.url, width=1366, height=768, scale=scale) as page:
                hands = Hands(page, shots)
                watch_frames(page)
                hands.wait('play.view && play.view.phase === "first-draw" && play.status.service === "running"'
                           ' && Object.keys(play.shown).length === 4', "the first draw on four panels")
                assert hands.js(FITS), hands.js("[document.scrollingElement.scrollWidth, window.innerWidth]")
                bag = page.locator("#bag").bounding_box()
                aside = page.locator("#bag-box").bounding_box()
                assert bag["x"] + bag["width"] <= aside["x"] + aside["width"]  # the bag's letters wrap inside
                assert_panels_show_their_frames(page, keys, shots)
                hands.shot(f"01-four-seats-1366x768-at-{scale}x")
                beside = page.locator("aside").bounding_box()["y"] < page.locator("#table").bounding_box()["y"] + 100
                assert beside  # the bag beside the racks: a draw is one drag
                if scale == 1:  # a draw from the bag to a side seat's rack, in one drag: the panels follow
                    hands.draw("R3.1", "C")
                    hands.wait('play.view.first_draw.letters[2] === "C"', "Cleo's draw read")
                    assert hands.js(FITS)
                    assert_panels_show_their_frames(page, keys, shots)
    finally:
        code = play.stop()
    assert code == 0


def test_an_earlier_session_resumes_with_its_tiles_laid_back(folder: Path) -> None:
    """``play --state`` of an earlier session: on a bare table (``--bare-table``) the page shows
    the very tiles the service asks back, a letter dropped on an asked cell is that tile, and
    one click lays them all back; by default they lie where they were from the start."""
    sync_api = need_browser()
    shots = OUTPUT / "resume"
    shutil.rmtree(shots, ignore_errors=True)
    args = ["--rules", "de", "--players", "Anna,Ben", "--seed", "5", *FAST]
    play = PlayProcess(folder, args)
    try:
        with browser_page(sync_api, play.url) as page:
            hands = Hands(page, shots)
            haus(hands)
            committed = hands.js("play.view.committed_tags")
            racks = hands.js("play.view.rack_tags")
    finally:
        assert play.stop() == 0
    assert sorted(committed) == ["H8", "I8", "J8", "K8"] and [len(r) for r in racks] == [3, 7]  # (Anna has not drawn yet)
    lying = "Object.entries(%s).every(([loc, uid]) => play.tags[loc] === uid)" % json.dumps(committed)
    on_racks = "%s.every((rack) => rack.every((uid) => Object.values(play.tags).includes(uid)))" % json.dumps(racks)

    play = PlayProcess(folder, [*args, "--bare-table"])
    try:
        with browser_page(sync_api, play.url) as page:
            hands = Hands(page, shots)
            hands.wait('play.view && Object.keys(play.view.asked).length === 4 && play.status.service === "running"',
                       "the tiles asked back")
            assert hands.js("play.view.asked") == committed  # the very tiles, by tag
            asked = page.locator('[data-loc="H8"] .tile.asked')
            name = hands.js(f'play.hello.tiles["{committed["H8"]}"].name')
            assert asked.get_attribute("data-name") == name and asked.inner_text().startswith("H")
            hands.shot("01-bare-table-asks")
            hands.draw("H8", "H")  # the H the journal expects, whichever copy that is
            assert hands.tags()["H8"] == committed["H8"]
            hands.wait('!play.view.asked["H8"]', "H8 put right")
            assert hands.click("#lay-back")["ok"]
            hands.wait(f'{lying} && {on_racks} && Object.keys(play.view.asked).length === 0'
                       ' && play.view.to_place.length === 0', "every tile back")
            hands.shot("02-laid-back")
            page.keyboard.down("m")  # any button: the game goes on, Ben to play
            page.wait_for_timeout(200)
            page.keyboard.up("m")
            hands.wait("!play.view.paused && play.view.turn === 1 && play.view.scores[0] === 10", "the game going on")
    finally:
        assert play.stop() == 0

    play = PlayProcess(folder, args)
    try:
        with browser_page(sync_api, play.url) as page:
            hands = Hands(page, shots)
            hands.wait(f'play.view && play.view.paused && {lying} && {on_racks}', "the tiles where they were")
            hands.settled(sorted(committed))
            assert hands.view()["to_place"] == [] and hands.view()["asked"] == {}
            hands.shot("03-resumed-as-it-was")
    finally:
        assert play.stop() == 0

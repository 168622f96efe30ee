"""A real board service playing a scripted game shows up move by move on the hub's pages.

``scoreboard run --simulate --script ... --virtual-clock`` (the simulated board on its pty,
the real service and its journal) publishes to a real Mosquitto; the hub (here) serves its
pages to headless Chromium (Debian's, through Playwright's ``executable_path``). The table
page is open before the game starts: every record reaches it in order, none missing, the
board it shows at the end is the journal's, and the GCG the hub serves is the journal's.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from mqtthelpers import HubRig, running_broker, wait_for
from playhelpers import ROOT, browser_page, need_browser

from scoreboard.demo import short_demo_script
from scoreboard.export_cli import game_to_gcg, replay_game
from scoreboard.journal import Journal
from scoreboard.lexicons import open_lexicon


def test_a_scripted_game_shows_up_move_by_move_on_the_table_page(tmp_path: Path) -> None:
    sync_api = need_browser()
    script, _ = short_demo_script("de", ["Anna", "Ben"], open_lexicon("de"))
    (tmp_path / "game.txt").write_text(script, encoding="utf-8")
    with running_broker(tmp_path / "broker") as broker:
        hub = HubRig(broker, tmp_path / "hub", tables=("t1", "t2")).start()  # (t2: set up, never connected)
        url = hub.serve()
        try:
            with browser_page(sync_api, f"{url}/tables/t1") as page:
                page.wait_for_selector("#conn.live")
                settings = [x for s in broker.board_settings("t1") for x in ("--set", s)]
                log = open(tmp_path / "board.log", "wb")
                board = subprocess.Popen(
                    [sys.executable, "-m", "scoreboard.cli", "run", "--simulate", "--script", str(tmp_path / "game.txt"),
                     "--virtual-clock", "--out", str(tmp_path / "out"), "--set", f"paths.state_dir={tmp_path / 'state'}",
                     "--set", "game.rules=de", "--set", 'game.players=["Anna", "Ben"]', "--set", "game.clock=60", *settings],
                    cwd=ROOT, stdout=log, stderr=log,
                )
                try:
                    page.wait_for_function("document.querySelectorAll('.cell.tile').length >= 4", timeout=120_000)
                    assert board.poll() is None, "the game was over before its first play showed"
                    page.wait_for_selector(".players .clock[data-seat='1']")  # each player's clock, from the board's state
                    assert page.locator(".players .clock").count() == 2
                    shown_mid = page.evaluate("window.hubTaken.length")
                    assert board.wait(timeout=180) == 0, (tmp_path / "board.log").read_text()[-2000:]
                finally:
                    if board.poll() is None:
                        board.kill()
                    log.close()
                with Journal.open_existing(tmp_path / "state") as journal:
                    info = journal.latest()
                    assert info is not None
                    entries = journal.entries(info.id)
                    expected = game_to_gcg(info, entries)
                    final = replay_game(info, entries)
                wait_for(lambda: page.evaluate("window.hubTaken.length") >= len(entries), timeout=30,
                         why="every record on the page")
                taken = page.evaluate("window.hubTaken.map(t => t.seq)")
                assert taken == list(range(1, len(entries) + 1))  # each record, in order, once
                assert 0 < shown_mid < len(entries)  # the page was following the game while it was played
                tiles = page.evaluate(
                    "Object.fromEntries([...document.querySelectorAll('.cell.tile')].map(c => [c.dataset.square, c.textContent]))"
                )
                assert tiles == {sq.name(): t.letter for sq, t in final.board.tiles()}
                names = page.inner_text(".players")
                assert "Anna" in names and "Ben" in names
                assert "Final:" in page.inner_text("aside")  # the game's end, with the racks now shown
                assert page.locator(".players .rack").count() == 2
                with urllib.request.urlopen(f"{url}/games/t1-{info.id}.gcg") as r:
                    assert r.read().decode() == expected
                with urllib.request.urlopen(f"{url}/feed.json") as r:
                    feed = json.load(r)
                assert feed["tables"][0]["online"] is False  # the board said goodbye
                assert [(t["table"], t["never"]) for t in feed["tables"]] == [("t1", False), ("t2", True)]
                assert feed["games"][0]["over"] and feed["standings"][0]["games"] == 1
                page.goto(f"{url}/")
                page.wait_for_selector("#t-t1 .players li")
                assert page.locator("#t-t1 .clock").count() == 2  # the clocks on the venue too
                assert page.inner_text("#t-t2 .status") == "never connected" and "offline" in page.inner_text("#t-t1 .status")
                page.goto(f"{url}/standings")
                page.wait_for_selector(".ranking tbody tr")
                page.goto(f"{url}/overlay/t1")
                page.wait_for_selector(".players.big li")
        finally:
            hub.stop()

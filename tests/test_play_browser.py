"""``scoreboard play`` in Chromium: whole German games played by drags and clicks on the page,
through the real service on the simulated board; faults from the page; the page, the journal
and the exported GCG agree. Screenshots of the key moments go to ``tests/output/play/``.

Real time, with the buttons' long press at 0.6 s (``--set buttons.long_ms=600``): a game
takes some 30 s here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from engine import gcg
from playhelpers import (  # noqa: F401 (folder: a fixture)
    FAST, LONG, OUTPUT, SEAT_PANELS, Hands, PlayProcess, assert_panels_show_their_frames, begin, browser_page, deal,
    exported_gcg, folder, haus, journal_result, lay, need_browser, refill, slot_of, watch_frames,
)


def scores(hands: Hands) -> list[int]:
    return list(hands.view()["scores"])


def page_scores(hands: Hands) -> list[int]:
    """The scores as the page's score sheet shows them (its text)."""
    cells = hands.page.locator("#scores td.score").all_inner_texts()
    return [int(c) for c in cells]


def final_scores(hands: Hands) -> list[int]:
    cells = hands.page.locator("#tally td.final").all_inner_texts()
    return [int(c) for c in cells]


def pass_until_over(hands: Hands) -> int:
    """Scoreless turns (Done, then Done held) until the tally; how many."""
    passes = 0
    while hands.view()["phase"] != "over":
        assert passes < 8, "the game did not end on passes"
        seat = hands.view()["turn"] + 1
        hands.press("done", seat)
        hands.wait('play.view.mode === "confirm-pass"', "the pass question")
        hands.press("done", seat, hold=LONG)
        passes += 1
        hands.wait(f'play.view.phase === "over" || play.view.turn === {seat % 2}', "the next turn")
    return passes


def fitting_letters(pattern: str) -> list[str]:
    """The letters a blank in ``pattern`` may stand for, in the order the picker offers them."""
    from engine.rules import get_profile
    from scoreboard.lexicons import open_lexicon

    lexicon, tile_set = open_lexicon("de"), get_profile("de").tile_set
    return [ch for ch in tile_set.letters if ch != "?" and pattern.replace("?", ch) in lexicon]


def gcg_finals(text: str) -> list[int]:
    """Each player's last cumulative score in a GCG text."""
    record = gcg.read(text)
    finals: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith(">"):
            name = line[1:].split(":", 1)[0]
            finals[name] = int(line.split()[-1])
    return [finals[p.nick] for p in record.players]


def test_a_whole_german_game_by_drags_and_clicks(folder: Path) -> None:
    sync_api = need_browser()
    shots = OUTPUT / "german-game"
    shutil.rmtree(shots, ignore_errors=True)
    play = PlayProcess(folder, ["--rules", "de", "--players", "Anna,Ben", "--seed", "7", *FAST, *SEAT_PANELS])
    try:
        with browser_page(sync_api, play.url) as page:
            hands = Hands(page, shots)
            watch_frames(page)
            begin(hands)
            deal(hands, 1, "HAUSTEN")
            deal(hands, 2, "?NDEIRT")
            hands.wait('play.view.racks.join() === "7,7"', "the deal")
            hands.shot("02-the-deal")

            # Anna: HAUS across the centre; Ben challenges and is wrong (de: -5)
            lay(hands, 1, {"H8": "H", "I8": "A", "J8": "U", "K8": "S"})
            hands.press("done", 1)
            hands.wait('play.view.board["H8"] && play.view.scores[0] > 0', "HAUS scored")
            hands.shot("03-haus-scored")
            hands.press("challenge", 2)
            hands.wait("play.view.scores[1] === -5", "the failed challenge")
            hands.shot("04-challenge-failed")
            refill(hands, 1, "RIEX")

            # Ben: a blank he names himself, laid through the A of HAUS; one tile slid into place
            hands.move(slot_of(hands, 2, "?"), "I5")
            hands.move("I5", "I7")  # slid down the column, through I6
            lay(hands, 2, {"I9": "N", "I10": "D"})
            hands.settled(["I7"])
            hands.press("done", 2)
            hands.wait('play.view.mode === "blank"', "the blank's question")
            hands.shot("05-blank-picker")
            # Ben's panel asks him for the blank's letter, Anna's does not: each panel its own seat's frames
            hands.wait('window.testFrames["0"] && window.testFrames["1"]'
                       ' && window.testFrames["0"].png !== window.testFrames["1"].png', "the seats' panels differ")
            assert_panels_show_their_frames(page, ["0", "1"], shots)
            hands.press("done", 2)  # the next letter
            hands.press("done", 2, hold=LONG)  # taken
            hands.wait('play.view.board["I7"] && play.view.board["I7"].blank', "the blank's play")
            blank = hands.view()["board"]["I7"]["letter"]
            assert blank == fitting_letters("?AND")[1]  # the second letter that fits: Done once, then held
            hands.shot("06-blank-named")
            refill(hands, 2, "EEL")

            # Anna: a phony, HAUSX; Ben challenges, Anna takes the X back
            anna_before = scores(hands)[0]
            lay(hands, 1, {"L8": "X"})
            hands.press("done", 1)
            hands.wait('play.view.board["L8"]', "HAUSX laid")
            hands.press("challenge", 2)
            hands.wait(f"play.view.scores[0] === {anna_before}", "the phony withdrawn")
            hands.wait('play.view.to_remove.includes("L8")', "the phony's tile to take off")
            hands.shot("07-phony-taken-back")
            hands.move("L8", slot_of_free(hands, 1))
            hands.wait('play.view.to_remove.length === 0', "the board put right")

            # Ben exchanges two tiles: back into the bag, two new ones on the same slots, Done, Done held
            out = [slot_of(hands, 2, "E"), slot_of(hands, 2, "T")]
            for loc in out:
                hands.move(loc, "bag")
            for loc, letter in zip(out, "OM"):
                hands.draw(loc, letter)
            hands.press("done", 2)
            hands.wait('play.view.mode === "confirm-exchange"', "the exchange question")
            hands.shot("08-exchange-question")
            hands.press("done", 2, hold=LONG)
            hands.wait('play.view.turn === 0 && play.view.mode === "idle"', "the exchange done")

            # passes until the game ends: the tally
            assert pass_until_over(hands) >= 4
            hands.wait("play.view.tally !== null", "the tally")
            hands.shot("09-tally")
            tally = hands.view()["tally"]
            finals = final_scores(hands)
            assert finals == [row["final"] for row in tally["rows"]]
    finally:
        code = play.stop()
    assert code == 0  # stopped cleanly (SIGTERM)
    # the page, the service's journal and the exported GCG agree
    result = journal_result(play.state)
    assert [row["final"] for row in result["rows"]] == finals
    assert result["termination"] == "passes" == tally["termination"]
    text = exported_gcg(play.state)
    assert gcg_finals(text) == finals
    assert "#player1 Anna" in text and "(challenge) -5" in text and "--" in text
    assert f"I7 {blank.lower()}.ND" in text  # the blank, as Ben named it
    (shots / "game.gcg").write_text(text, encoding="utf-8")


def slot_of_free(hands: Hands, seat: int) -> str:
    return next(f"R{seat}.{s}" for s in range(1, 8) if f"R{seat}.{s}" not in hands.tags())




def test_the_cable_and_the_power_pulled_from_the_page_mid_game(folder: Path) -> None:
    sync_api = need_browser()
    shots = OUTPUT / "faults"
    shutil.rmtree(shots, ignore_errors=True)
    play = PlayProcess(folder, ["--rules", "de", "--players", "Anna,Ben", "--seed", "3", *FAST])  # the one 3.12in panel
    try:
        with browser_page(sync_api, play.url) as page:
            hands = Hands(page, shots)
            watch_frames(page)
            haus(hands)
            assert_panels_show_their_frames(page, ["table"], shots)  # the 3.12in panel, 256 x 64 at 2x
            refill(hands, 1, "RIEX")

            # the cable pulled: the service says the board is away; Ben lays meanwhile
            assert hands.click("#fault-unplug")["ok"]
            hands.wait("play.status.plugged === false && play.view.away", "the board away")
            hands.shot("01-unplugged")
            hands.move(slot_of(hands, 2, "N"), "J9")
            hands.move(slot_of(hands, 2, "D"), "J10")
            assert hands.view()["reads"].get("J9") is None  # nothing read while the cable is out
            assert hands.click("#fault-plug")["ok"]
            hands.wait("play.status.plugged && !play.view.away", "the board back")
            hands.settled(["J9", "J10"])
            hands.shot("02-plugged-back")

            # a reader killed from the page (reader 8 reads row 9): the service names it; revived
            page.select_option("#reader-select", "8")
            assert hands.click("#fault-kill-reader")["ok"]
            hands.wait("play.view.dead.length === 1 && play.view.dead[0].reader === 8", "the dead reader")
            hands.shot("02b-reader-dead")
            assert hands.click("#fault-revive-reader")["ok"]
            hands.wait("play.view.dead.length === 0", "the reader back")
            hands.settled(["J9", "J10"])

            # the service's power pulled before Ben's Done: it comes back paused, any button continues
            starts, pulled = hands.js("play.status.starts"), hands.js("Date.now() / 1000")
            assert hands.click("#fault-power")["ok"]
            hands.wait(f'play.status.starts > {starts} && play.status.service === "running" && play.view'
                       f' && play.view.paused && play.shownAt.table > {pulled}', "the service back, paused")
            hands.shot("03-resumed-paused")
            assert hands.view()["scores"] == [10, 0] and hands.view()["board"].get("H8")  # nothing lost
            page.keyboard.down("z")  # any button continues: seat 1's Challenge, by its key
            page.wait_for_timeout(200)
            page.keyboard.up("z")
            hands.wait("!play.view.paused", "the game going on")
            hands.settled(["J9", "J10"])
            hands.press("done", 2)
            hands.wait('play.view.board["J10"] && play.view.scores[1] > 0', "UND scored")
            hands.shot("04-und-scored")
            refill(hands, 2, "EE")
            assert pass_until_over(hands) >= 4
            hands.wait("play.view.tally !== null", "the tally")
            hands.shot("05-tally")
            finals = final_scores(hands)
            assert page_scores(hands) == finals
            starts = hands.js("play.status.starts")
    finally:
        code = play.stop()
    assert code == 0
    assert starts == 2  # started once, and once more after the power came back
    result = journal_result(play.state)
    assert [row["final"] for row in result["rows"]] == finals
    text = exported_gcg(play.state)
    assert gcg_finals(text) == finals
    assert ">Ben: ?NDEIRT J8 .ND" in text  # the play laid across the cable's pull and the power cut
    (shots / "game.gcg").write_text(text, encoding="utf-8")


def test_watch_shows_the_demo_game_live_and_keeps_hands_off(folder: Path) -> None:
    sync_api = need_browser()
    shots = OUTPUT / "watch"
    shutil.rmtree(shots, ignore_errors=True)
    play = PlayProcess(folder, ["--watch"])
    try:
        with browser_page(sync_api, play.url) as page:
            hands = Hands(page, shots)
            hands.wait("play.hello && play.hello.watch", "the watching page")
            # the script's own hands: the draw for the first player, then the deal, on the page as it happens
            hands.wait('play.view && play.view.phase === "playing" && play.view.racks.join() === "7,7"', "the deal",
                       timeout=60)
            hands.wait('Object.keys(play.tags).filter((loc) => loc.startsWith("R")).length === 14', "the racks' tiles")
            assert hands.js("play.frames") >= 3
            hands.shot("01-the-deal")
            answer = hands.drag('#bag .tile[data-letter="E"]', '[data-loc="R1.1"]', ok=False)
            assert answer["problem"] == "watching" and "hands off" in answer["message"]
    finally:
        code = play.stop()
    assert code == 0

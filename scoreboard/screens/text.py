"""UI strings in German, French and English: one table, a key per message.

Placeholders are :meth:`str.format` fields; every language of a key has the same ones
(checked by the tests). Keep lines short: a 128x64 panel shows 20 characters of the body
font inside its margin, and every hint (a line that says which button does what) must fit
that (checked by the tests). Buttons are named as the seats' buttons are labelled: Done
(Fertig, Fini), Challenge (Einspruch, Contester) and Menu (Menü), never abbreviated; a long
press is "halten" ("Fertig halten"), "maintenir" or "tenir" and "hold", and a hint says what
the press does ("Fertig halten: ja"), never only "OK".
"""

from __future__ import annotations

from collections.abc import Mapping

from scoreboard.drawing.starting import STARTING_TEXT

from .models import LANGUAGES, EnrollIssue, ErrorKind, Lang, MenuItem

__all__ = ["HINTS", "TEXT", "text", "tiles"]



def _langs(entry: Mapping[str, str]) -> dict[Lang, str]:
    """``entry`` typed by language; a missing language is a KeyError at import."""
    return {lang: entry[lang] for lang in LANGUAGES}


TEXT: dict[str, dict[Lang, str]] = {
    # a player without a configured name (game.players = "auto", or more seats than names)
    "player.default": {"de": "Spieler {n}", "fr": "Joueur {n}", "en": "Player {n}"},
    # scores
    "scores.bag": {"de": "Beutel: {n}", "fr": "Sac : {n}", "en": "Bag: {n}"},
    "scores.bag_empty": {"de": "Beutel leer", "fr": "Sac vide", "en": "Bag empty"},
    "scores.your_turn": {"de": "Dein Zug!", "fr": "À vous !", "en": "Your turn!"},
    "scores.title": {"de": "Punkte", "fr": "Scores", "en": "Scores"},
    # last play
    "last.title": {"de": "Zug von {name}", "fr": "Coup de {name}", "en": "{name} played"},
    "last.bingo": {"de": "Bingo! +{n}", "fr": "Scrabble ! +{n}", "en": "Bingo! +{n}"},
    "last.more": {"de": "+{n} weitere", "fr": "+{n} autres", "en": "+{n} more"},
    # challenge window and result
    "window.title": {"de": "Einspruch?", "fr": "Contestation ?", "en": "Challenge?"},
    "window.hint": {"de": "Einspruch drücken", "fr": "Appuyer : Contester", "en": "Press Challenge"},
    "result.title": {"de": "Einspruch", "fr": "Contestation", "en": "Challenge"},
    "result.valid": {"de": "Zug gültig", "fr": "Coup valable", "en": "Play is valid"},
    "result.invalid": {"de": "Ungültig: {words}", "fr": "Refusé : {words}", "en": "Invalid: {words}"},
    "result.right": {"de": "Recht hat {name}", "fr": "{name} a raison", "en": "{name} was right"},
    "result.lost_turn": {"de": "{name} setzt aus", "fr": "{name} passe", "en": "{name} loses a turn"},
    "result.points": {"de": "{name}: {points}", "fr": "{name} : {points}", "en": "{name}: {points}"},
    "result.no_penalty": {"de": "Keine Strafe", "fr": "Pas de pénalité", "en": "No penalty"},
    "result.lost_game": {"de": "{name}: Spiel verloren", "fr": "{name} : partie perdue", "en": "{name} loses the game"},
    "result.withdraw": {
        "de": "{name} nimmt zurück",
        "fr": "{name} reprend",
        "en": "{name} takes back",
    },
    # errors: a title and what to do
    **{
        f"error.{kind.value}.{part}": _langs(entry)
        for kind, title, body in (
            (
                ErrorKind.NOT_IN_LINE,
                {"de": "Nicht in einer Reihe", "fr": "Pas alignées", "en": "Not in one line"},
                {
                    "de": "Neue Steine müssen in einer Reihe liegen.",
                    "fr": "Les lettres posées doivent être alignées.",
                    "en": "New tiles must lie in one row or column.",
                },
            ),
            (
                ErrorKind.GAP,
                {"de": "Lücke", "fr": "Trou", "en": "Gap"},
                {
                    "de": "Zwischen den neuen Steinen ist eine Lücke.",
                    "fr": "Il y a un trou entre les lettres posées.",
                    "en": "There is a gap between the new tiles.",
                },
            ),
            (
                ErrorKind.NOT_TOUCHING,
                {"de": "Nicht angelegt", "fr": "Pas de contact", "en": "Not touching"},
                {
                    "de": "Der Zug muss an liegende Steine anschließen.",
                    "fr": "Le mot doit toucher une lettre en place.",
                    "en": "The play must touch a tile on the board.",
                },
            ),
            (
                ErrorKind.NOT_CENTER,
                {"de": "Nicht in der Mitte", "fr": "Pas au centre", "en": "Not on the centre"},
                {
                    "de": "Das erste Wort muss über die Mitte gehen.",
                    "fr": "Le premier mot doit passer par le centre.",
                    "en": "The first word must cover the centre.",
                },
            ),
            (
                ErrorKind.TILE_MOVED,
                {"de": "Stein verschoben", "fr": "Lettre déplacée", "en": "A tile moved"},
                {
                    "de": "Den Stein zurücklegen:",
                    "fr": "Remettez la lettre en place :",
                    "en": "Put the tile back:",
                },
            ),
            (
                ErrorKind.UNKNOWN_TILE,
                {"de": "Unbekannter Stein", "fr": "Lettre inconnue", "en": "Unknown tile"},
                {
                    "de": "Dieser Stein ist nicht angemeldet:",
                    "fr": "Cette lettre n'est pas enregistrée :",
                    "en": "This tile is not enrolled:",
                },
            ),
            (
                ErrorKind.BOARD_DISCONNECTED,
                {"de": "Brett getrennt", "fr": "Plateau déconnecté", "en": "Board disconnected"},
                {
                    "de": "Kabel prüfen. Das Spiel bleibt gespeichert.",
                    "fr": "Vérifiez le câble. La partie est conservée.",
                    "en": "Check the cable. The game is kept.",
                },
            ),
            (
                ErrorKind.BOARD_REFUSED,
                {"de": "Brett abgelehnt", "fr": "Plateau refusé", "en": "Board refused"},
                {
                    "de": "Spiel gespeichert.",
                    "fr": "Partie conservée.",
                    "en": "The game is kept.",
                },
            ),
            (
                ErrorKind.READ_TIMEOUT,
                {"de": "Brett nicht gelesen", "fr": "Lecture impossible", "en": "Board not read"},
                {
                    "de": "Steine ruhig liegen lassen und nochmal Fertig drücken.",
                    "fr": "Ne touchez plus les lettres et appuyez encore sur Fini.",
                    "en": "Leave the tiles still and press Done again.",
                },
            ),
            (
                ErrorKind.REMOVE_TILES,
                {"de": "Steine zurücknehmen", "fr": "Lettres à retirer", "en": "Take tiles back"},
                {
                    "de": "Diese Steine vom Brett nehmen:",
                    "fr": "Retirez ces lettres du plateau :",
                    "en": "Take these tiles off the board:",
                },
            ),
            (
                ErrorKind.PUT_BACK_TILES,
                {"de": "In den Beutel", "fr": "Remettre au sac", "en": "Back in the bag"},
                {
                    "de": "Gezogene Steine zurück in den Beutel:",
                    "fr": "Remettez les lettres tirées dans le sac :",
                    "en": "Put the drawn tiles back in the bag:",
                },
            ),
            (
                ErrorKind.NOT_YOUR_TILE,
                {"de": "Fremde Steine", "fr": "Lettres d'un autre", "en": "Not your tiles"},
                {
                    "de": "Diese Steine sind nicht vom eigenen Bänkchen:",
                    "fr": "Ces lettres ne viennent pas de votre chevalet :",
                    "en": "These tiles are not from your rack:",
                },
            ),
            (
                ErrorKind.NOT_YOUR_TURN,
                {"de": "Nicht am Zug", "fr": "Pas votre tour", "en": "Not your turn"},
                {
                    "de": "Fertig drückt nur, wer am Zug ist:",
                    "fr": "Ce n'est pas votre tour. Au tour de :",
                    "en": "Only the player to move presses Done:",
                },
            ),
            (
                ErrorKind.REFILL_RACK,
                {"de": "Erst nachziehen", "fr": "Piochez d'abord", "en": "Refill the rack"},
                {
                    "de": "Erst Steine aus dem Beutel nachziehen:",
                    "fr": "Piochez d'abord les lettres manquantes :",
                    "en": "First draw new tiles from the bag:",
                },
            ),
            (
                ErrorKind.TOO_LATE,
                {"de": "Zu spät", "fr": "Trop tard", "en": "Too late"},
                {
                    "de": "Die Einspruchsfrist ist abgelaufen.",
                    "fr": "Le délai de contestation est écoulé.",
                    "en": "The challenge window has closed.",
                },
            ),
            (
                ErrorKind.EXCHANGE_NOT_ALLOWED,
                {"de": "Kein Tausch möglich", "fr": "Échange impossible", "en": "Cannot exchange"},
                {
                    "de": "Zu wenige Steine zum Tauschen. Im Beutel:",
                    "fr": "Pas assez de lettres pour échanger. Sac :",
                    "en": "Too few tiles in the bag to exchange. Bag:",
                },
            ),
            (
                ErrorKind.DUPLICATE_TILE,
                {"de": "Stein doppelt", "fr": "Lettre en double", "en": "Tile read twice"},
                {
                    "de": "Ein Stein wurde an zwei Stellen gelesen:",
                    "fr": "Une même lettre lue à deux endroits :",
                    "en": "One tile was read in two places:",
                },
            ),
            (
                ErrorKind.MOVE_TIME_UP,
                {"de": "Zeit abgelaufen", "fr": "Temps écoulé", "en": "Time is up"},
                {
                    "de": "Die Zeit für den Zug ist um für:",
                    "fr": "Le temps du coup est écoulé pour :",
                    "en": "The time for the move ran out for:",
                },
            ),
            (
                ErrorKind.JOURNAL_FAILED,
                {"de": "Speicherfehler", "fr": "Erreur d'écriture", "en": "Save failed"},
                {
                    "de": "Spiel nicht gespeichert, Zug nicht angenommen.",
                    "fr": "Partie non enregistrée, coup non accepté.",
                    "en": "Game not saved: the move was not accepted.",
                },
            ),
            (
                ErrorKind.JOURNAL_DAMAGED,
                {"de": "Protokoll defekt", "fr": "Journal abîmé", "en": "Journal damaged"},
                {
                    "de": "Original unverändert im Datenordner, markiert:",
                    "fr": "L'original est gardé intact dans le dossier, marqué :",
                    "en": "Original kept in the state folder, marked:",
                },
            ),
            (
                ErrorKind.JOURNAL_UNREADABLE,
                {"de": "Protokoll unlesbar", "fr": "Journal illisible", "en": "Journal unreadable"},
                {
                    "de": "Lässt sich nicht öffnen. Der Grund steht im Log von:",
                    "fr": "Ne s'ouvre pas. La raison est dans le log de :",
                    "en": "It cannot be opened. The reason is in the log of:",
                },
            ),
            (
                ErrorKind.BAD_PLAY,
                {"de": "Ungültiger Zug", "fr": "Coup non valable", "en": "Invalid play"},
                {"de": "Zug nicht möglich:", "fr": "Coup impossible :", "en": "Play not allowed:"},
            ),
            (
                ErrorKind.OPENING_TOO_SHORT,
                {"de": "Zu kurz", "fr": "Trop court", "en": "Too short"},
                {
                    "de": "Der erste Zug braucht mindestens 2 Steine:",
                    "fr": "Le premier coup pose au moins 2 lettres :",
                    "en": "The first play needs 2 tiles or more:",
                },
            ),
            (
                ErrorKind.NOTHING_TO_UNDO,
                {"de": "Nichts zurück", "fr": "Rien à annuler", "en": "Nothing to undo"},
                {
                    "de": "Kein Zug kann zurückgenommen werden.",
                    "fr": "Aucun coup ne peut être annulé.",
                    "en": "No play can be taken back now.",
                },
            ),
            (
                ErrorKind.MOVED_SINCE,
                {"de": "Schon weitergespielt", "fr": "Déjà rejoué", "en": "Too late"},
                {
                    "de": "Seitdem wurde gezogen; nichts geändert.",
                    "fr": "Quelqu'un a joué depuis ; rien n'a changé.",
                    "en": "Somebody has moved since; nothing changed.",
                },
            ),
            (
                ErrorKind.ALREADY_WITHDRAWN,
                {"de": "Schon zurück", "fr": "Déjà repris", "en": "Already taken back"},
                {
                    "de": "Der Zug wurde nach dem Einspruch schon zurückgenommen.",
                    "fr": "Le coup a déjà été retiré après la contestation.",
                    "en": "The play was already taken back after the challenge.",
                },
            ),
            (
                ErrorKind.NOT_A_WORD,
                {"de": "Kein Wort", "fr": "Mot refusé", "en": "Not a word"},
                {
                    "de": "Ungültig, Steine zurücknehmen:",
                    "fr": "Hors liste, reprenez vos lettres :",
                    "en": "Not valid, take the tiles back:",
                },
            ),
            (
                ErrorKind.NO_CHALLENGE,
                {"de": "Kein Einspruch", "fr": "Pas de contestation", "en": "No challenges"},
                {
                    "de": "Jedes Wort wird beim Legen geprüft.",
                    "fr": "Chaque mot est vérifié à la pose.",
                    "en": "Every word is checked when laid.",
                },
            ),
            (
                ErrorKind.READER_FAULT,
                {"de": "Lesefehler", "fr": "Lecteur en panne", "en": "Reader fault"},
                {
                    "de": "Das Brett kann hier nicht lesen; Zug wartet.",
                    "fr": "Le plateau ne lit pas ici ; le coup attend.",
                    "en": "The board cannot read here; the move waits.",
                },
            ),
        )
        for part, entry in (("title", title), ("body", body))
    },
    # blank picker and confirmations
    "blank.title": {"de": "Joker {square}?", "fr": "Joker {square} ?", "en": "Blank {square}?"},
    "blank.keys": {"de": "Fertig ▸ Einspruch ◂", "fr": "Fini ▸  Contester ◂", "en": "Done ▸  Challenge ◂"},
    "blank.hold": {"de": "Halten: Fertig wählt", "fr": "Tenir : Fini choisit", "en": "Hold Done: take it"},
    "blank.back": {"de": "  Einspruch: zurück", "fr": "  Contester : retour", "en": "Hold Challenge: back"},
    "hold_done": {"de": "Fertig halten: ja", "fr": "Maintenir Fini : oui", "en": "Hold Done: confirm"},
    "challenge_cancels": {"de": "Einspruch: abbrechen", "fr": "Contester : annuler", "en": "Challenge: cancel"},
    "confirm.pass": {"de": "Passen?", "fr": "Passer ?", "en": "Pass?"},
    "confirm.exchange": {"de": "Tauschen?", "fr": "Échanger ?", "en": "Exchange?"},
    "confirm.undo": {"de": "Zug zurück?", "fr": "Annuler le coup ?", "en": "Undo last play?"},
    "confirm.adjust": {"de": "{name} {points}?", "fr": "{name} {points} ?", "en": "{name} {points}?"},
    "confirm.override": {"de": "Urteil aufheben?", "fr": "Passer outre ?", "en": "Override ruling?"},
    "confirm.end-game": {"de": "Spiel beenden?", "fr": "Fin de partie ?", "en": "End the game?"},
    "confirm.new-game": {"de": "Neues Spiel?", "fr": "Nouvelle partie ?", "en": "New game?"},
    "confirm.by": {"de": "{name} fragt:", "fr": "{name} demande :", "en": "{name} asks:"},
    "confirm.other": {"de": "Anderer hält Fertig", "fr": "Autre maintient Fini", "en": "Another: hold Done"},
    "confirm.withdraw": {"de": "Menü: zurückziehen", "fr": "Menu : retirer", "en": "Menu: withdraw"},
    "tiles.one": {"de": "{n} Stein", "fr": "{n} lettre", "en": "{n} tile"},
    "tiles.many": {"de": "{n} Steine", "fr": "{n} lettres", "en": "{n} tiles"},
    # reading the board, pause
    "reading.title": {"de": "Brett lesen…", "fr": "Lecture…", "en": "Reading board…"},
    "reading.who": {"de": "{name} ist fertig", "fr": "{name} a fini", "en": "{name} is done"},
    "reading.hint": {
        "de": "Steine nicht bewegen",
        "fr": "Ne touchez plus rien",
        "en": "Keep the tiles still",
    },
    "paused.title": {"de": "Pause", "fr": "Pause", "en": "Paused"},
    "paused.turn": {"de": "Am Zug: {name}", "fr": "À jouer : {name}", "en": "To move: {name}"},
    "paused.clocks": {"de": "Uhren angehalten", "fr": "Pendules arrêtées", "en": "Clocks stopped"},
    "paused.resume": {
        "de": "Jede Taste: weiter",
        "fr": "Bouton : reprendre",
        "en": "Any button resumes",
    },
    # the draw for the first player
    "draw.title": {"de": "Wer beginnt?", "fr": "Qui commence ?", "en": "Who begins?"},
    "draw.place": {
        "de": "Je einen Stein aufs Bänkchen legen",
        "fr": "Posez une lettre sur votre chevalet",
        "en": "Each player puts one tile on their rack",
    },
    "draw.tie": {
        "de": "Gleichstand! Markierte ziehen neu",
        "fr": "Égalité : les marqués repiochent",
        "en": "Tie: marked seats draw again",
    },
    "draw.first": {"de": "{name} beginnt", "fr": "{name} commence", "en": "{name} begins"},
    "draw.back": {
        "de": "Steine zurück in den Beutel, dann ziehen",
        "fr": "Remettez les lettres au sac, puis piochez",
        "en": "All tiles back in the bag, then draw",
    },
    # adjusting a score
    "adjust.next": {"de": "Menü: weiter", "fr": "Menu : suivant", "en": "Menu: next"},
    "adjust.keys": {"de": "Fertig+1 Einspruch-1", "fr": "Fini +1 Contester -1", "en": "Done +1 Challenge -1"},
    "adjust.hold": {"de": "Halten: je 10", "fr": "Maintenir : par 10", "en": "Hold: 10 at once"},
    "adjust.done": {"de": "Menü halten: fertig", "fr": "Menu maintenu : fini", "en": "Hold Menu: done"},
    # unseen tiles
    "unseen.title": {"de": "Ungesehen: {n}", "fr": "Restantes : {n}", "en": "Unseen: {n}"},
    # end-of-game tally
    "tally.title": {"de": "Endstand", "fr": "Résultat", "en": "Final tally"},
    "tally.legend": {"de": "Spiel + Rest = Summe", "fr": "Jeu + reste = total", "en": "Game + rack = final"},
    "tally.winner": {"de": "Sieger: {names}", "fr": "Gagnant : {names}", "en": "Winner: {names}"},
    "tally.tie": {"de": "Remis: {names}", "fr": "Égalité : {names}", "en": "Tie: {names}"},
    # enrollment
    "enroll.title": {"de": "Steine anmelden", "fr": "Enregistrement", "en": "Tile enrollment"},
    "enroll.blank": {"de": "Joker", "fr": "Joker", "en": "Blank"},
    "enroll.place": {
        "de": "Alle diese Steine auflegen",
        "fr": "Posez toutes ces lettres",
        "en": "Put all these tiles down",
    },
    "enroll.ready": {"de": "Fertig drücken", "fr": "Appuyez sur Fini", "en": "Press Done"},
    "enroll.clear": {"de": "Brett abräumen", "fr": "Videz le plateau", "en": "Clear the board"},
    "enroll.left": {"de": "Noch {n} liegen", "fr": "Encore {n} posées", "en": "{n} still down"},
    "enroll.done": {
        "de": "Alle Steine angemeldet",
        "fr": "Toutes les lettres enregistrées",
        "en": "All tiles enrolled",
    },
    **{
        f"enroll.issue.{issue.name.lower()}": _langs(entry)
        for issue, entry in (
            (EnrollIssue.ENROLLED, {"de": "Schon angemeldet", "fr": "Déjà enregistrée", "en": "Already enrolled"}),
            (EnrollIssue.SEEN_TWICE, {"de": "Doppelt gelesen", "fr": "Lue deux fois", "en": "Read twice"}),
            (EnrollIssue.BAD_UID, {"de": "Fehlerhaft gelesen", "fr": "Lecture erronée", "en": "Bad reading"}),
            (EnrollIssue.UNKNOWN, {"de": "Unbekannter Stein", "fr": "Lettre inconnue", "en": "Unknown tile"}),
        )
    },
    # menu
    "menu.title": {"de": "Menü", "fr": "Menu", "en": "Menu"},
    "menu.select": {"de": "Fertig: wählen", "fr": "Fini : choisir", "en": "Done: select"},
    "menu.next": {"de": "Menü: weiter", "fr": "Menu : suivant", "en": "Menu: next item"},
    "menu.close": {"de": "Einspruch: schließen", "fr": "Contester : fermer", "en": "Challenge: close"},
    **{
        f"menu.{item.value}": _langs(entry)
        for item, entry in (
            (MenuItem.NEW_GAME, {"de": "Neues Spiel", "fr": "Nouvelle partie", "en": "New game"}),
            (MenuItem.PLAYERS, {"de": "Spieler", "fr": "Joueurs", "en": "Players"}),
            (MenuItem.PROFILE, {"de": "Regelprofil", "fr": "Règles", "en": "Rule profile"}),
            (MenuItem.PAUSE, {"de": "Pause", "fr": "Pause", "en": "Pause"}),
            (MenuItem.UNDO, {"de": "Letzten Zug zurück", "fr": "Annuler le coup", "en": "Undo last play"}),
            (MenuItem.ADJUST_SCORE, {"de": "Punkte korrigieren", "fr": "Corriger un score", "en": "Adjust a score"}),
            (MenuItem.END_GAME, {"de": "Spiel beenden", "fr": "Finir la partie", "en": "End game"}),
            (MenuItem.SHUT_DOWN, {"de": "Ausschalten", "fr": "Éteindre", "en": "Shut down"}),
        )
    },
    # why a board is refused (the BOARD_REFUSED screen's detail)
    "refused.protocol": {
        "de": "Brett: Protokoll {board}, Anzeige {host}.x: eines aktualisieren",
        "fr": "plateau : protocole {board}, tableau {host}.x : mettre l'un à jour",
        "en": "board protocol {board}, scoreboard {host}.x: update one",
    },
    "refused.cells": {
        "de": "{cols} x {rows} Felder statt 15 x 15",
        "fr": "{cols} x {rows} cases au lieu de 15 x 15",
        "en": "it has {cols} x {rows} cells, not 15 x 15",
    },
    "refused.racks": {
        "de": "{racks} Bänkchen (1 bis 4 möglich)",
        "fr": "{racks} chevalets (de 1 à 4)",
        "en": "{racks} racks (1 to 4 are supported)",
    },
    "refused.slots": {
        "de": "Bänkchen mit {slots} Plätzen (1 bis 9 möglich)",
        "fr": "chevalets de {slots} places (de 1 à 9)",
        "en": "racks of {slots} slots (1 to 9 are supported)",
    },
    "refused.other_board": {
        "de": "{racks} Bänkchen mit {slots} Plätzen statt {game_racks} mit {game_slots}",
        "fr": "{racks} chevalets de {slots} places au lieu de {game_racks} de {game_slots}",
        "en": "{racks} racks of {slots} slots, not {game_racks} of {game_slots}",
    },
    **{key: _langs(entry) for key, entry in STARTING_TEXT.items()},  # the starting frame's (light to load)
}
"""Every UI string: key -> language -> text."""

HINTS = (
    "window.hint", "blank.keys", "blank.hold", "blank.back", "hold_done", "challenge_cancels",
    "confirm.other", "confirm.withdraw", "menu.select", "menu.next", "menu.close", "paused.resume",
    "adjust.next", "adjust.keys", "adjust.hold", "adjust.done", "tally.legend", "reading.hint",
)
"""The keys of the hints: each fits one line of the narrowest panel (20 characters)."""


def text(key: str, lang: Lang, **fields: object) -> str:
    """The text of ``key`` in ``lang`` with ``fields`` filled in; KeyError if unknown."""
    return TEXT[key][lang].format(**fields)


def tiles(n: int, lang: Lang) -> str:
    """``"1 Stein"``, ``"3 Steine"``: a count of tiles in ``lang``."""
    return text("tiles.one" if n == 1 else "tiles.many", lang, n=n)

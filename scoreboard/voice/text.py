"""What the table says, in German, French and English: a speech model to its words.

:func:`announcement` gives the text of a :mod:`~scoreboard.voice.models` speech in the display's
language as :class:`Part` s: the text as written (the log, the tests) and what espeak-ng is to
read, each with the language whose voice says it. Names and everything else are said by the
display language's voice; a word laid on the board by the game's language's voice, as a word
(lower case, so that espeak-ng does not take it for an abbreviation). A word is spelled
instead, letter by letter in the display's language, when it cannot be said as a word: one
without a vowel ("BRR", "PST"), and a word ruled invalid (a phony: saying it would be
espeak-ng guessing at a word that is none, and the letters tell the table exactly what was
disputed). A word is never spelled because the lexicon does not know it before a challenge:
that would tell the table it is a phony.

Numbers and plurals are :mod:`~scoreboard.voice.numbers`'. A few words espeak-ng says wrongly
are respelled for it only (:data:`RESPELL`: German "Joker" is said [dʒ], not [j]; French
"joker" and "Scrabble" in French, not English).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

from scoreboard.screens.models import LANGUAGES, Lang

from .models import (
    ExchangeSpeech,
    PassSpeech,
    PlaySpeech,
    RulingSpeech,
    Speech,
    SpeechKind,
    TallySpeech,
    TimeSpeech,
    TurnSpeech,
    kind_of,
)
from .numbers import count
from .spelling import speakable

__all__ = ["RESPELL", "TEXT", "Announcement", "Part", "Sayings", "announcement", "respell", "spell", "spelled"]

Sayings = Mapping[str, "str | Mapping[str, str]"]
"""How players' names are said (``voice.names``): a name to a language (``"fr"``: the name is
said by that language's voice, whatever the display's), to a respelling every voice reads
instead of the name (espeak-ng's ``[[...]]`` phonemes allowed), or to a table of respellings
by the display's language (a language missing from it says the name as written)."""

@dataclass(frozen=True)
class Part:
    """A stretch of an announcement said by one voice: ``text`` as written, ``say`` as
    espeak-ng reads it, in the voice of ``lang``."""

    text: str
    say: str
    lang: Lang

@dataclass(frozen=True)
class Announcement:
    """An announcement's parts in order (neighbours of one language are merged)."""

    kind: SpeechKind
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        """The whole text as written."""
        return "".join(p.text for p in self.parts)

def _langs(de: str, fr: str, en: str) -> dict[Lang, str]:
    return {"de": de, "fr": fr, "en": en}

TEXT: dict[str, dict[Lang, str]] = {
    "play": _langs("{name}, {word}, {points}.", "{name}, {word}, {points}.", "{name}, {word}, {points}."),
    "play.blanks": _langs(
        "{name}, {word}, Joker als {letters}, {points}.",
        "{name}, {word}, joker en {letters}, {points}.",
        "{name}, {word}, blank as {letters}, {points}.",
    ),
    "play.two_blanks": _langs(
        "{name}, {word}, Joker als {letters}, {points}.",
        "{name}, {word}, jokers en {letters}, {points}.",
        "{name}, {word}, blanks as {letters}, {points}.",
    ),
    "play.bingo": _langs(" Bingo!", " Scrabble !", " Bingo!"),
    "pass": _langs("{name} passt.", "{name} passe.", "{name} passes."),
    "exchange": _langs("{name} tauscht {tiles}.", "{name} échange {tiles}.", "{name} exchanges {tiles}."),
    "ruling.by": _langs("Einspruch von {name}. ", "{name} conteste. ", "{name} challenges. "),
    "ruling.overridden": _langs("Entscheidung geändert. ", "Décision inversée. ", "Ruling overridden. "),
    "ruling.valid": _langs("{word} ist gültig.", "{word} est valable.", "{word} is valid."),
    "ruling.invalid": _langs("Ungültig: {words}.", "Refusé : {words}.", "Invalid: {words}."),
    "ruling.withdraw": _langs(
        " {name} nimmt den Zug zurück.", " {name} reprend ses lettres.", " {name} takes the play back."
    ),
    "ruling.penalty": _langs(" {name} verliert {points}.", " {name} perd {points}.", " {name} loses {points}."),
    "ruling.bonus": _langs(" {name} bekommt {points}.", " {name} gagne {points}.", " {name} gets {points}."),
    "ruling.lost_turn": _langs(" {name} setzt aus.", " {name} passe son tour.", " {name} loses a turn."),
    "ruling.no_penalty": _langs(" Keine Strafe.", " Pas de pénalité.", " No penalty."),
    "ruling.lost_game": _langs(" {name} verliert das Spiel.", " {name} perd la partie.", " {name} loses the game."),
    "turn": _langs("{name} ist am Zug.", "À {name} de jouer.", "{name} to play."),
    "time.left": _langs("{name}, noch {time}.", "{name}, plus {que}{time}.", "{name}, {time} left."),
    "time.move_left": _langs(
        "{name}, noch {time} für den Zug.",
        "{name}, plus {que}{time} pour ce coup.",
        "{name}, {time} left for the move.",
    ),
    "time.up": _langs("{name}, die Zeit ist um.", "{name}, temps écoulé.", "{name}, time is up."),
    "time.move_up": _langs(
        "{name}, die Zeit für den Zug ist um.",
        "{name}, le temps du coup est écoulé.",
        "{name}, time for the move is up.",
    ),
    "tally": _langs("Spielende.", "Fin de la partie.", "Game over."),
    "tally.row": _langs(" {name}: {points}.", " {name} : {points}.", " {name}: {points}."),
    "tally.winner": _langs(" {name} gewinnt.", " {name} gagne.", " {name} wins."),
    "tally.tie": _langs(" Unentschieden zwischen {names}.", " Égalité entre {names}.", " A tie between {names}."),
    "and": _langs(" und ", " et ", " and "),
}
"""Every spoken text: key -> language -> template. A field is a name, a number with its noun,
or a word (said by the game's voice)."""

RESPELL: dict[Lang, dict[str, str]] = {
    "de": {"Joker": "Dschoker"},
    "fr": {"joker": "jokère", "jokers": "jokères", "Scrabble": "Scrable"},
    "en": {},
}
"""Words of the texts that espeak-ng says wrongly, written for it as they are said."""

_VOWELS: dict[Lang, frozenset[str]] = {
    "de": frozenset("AEIOUYÄÖÜ"),
    "fr": frozenset("AEIOUY"),
    "en": frozenset("AEIOUY"),
}

@dataclass(frozen=True)
class _Said:
    """A field said by another voice than the text around it (a word in the game's language)."""

    text: str
    say: str
    lang: Lang

def respell(text: str, lang: Lang) -> str:
    """``text`` with the words of :data:`RESPELL` written as espeak-ng must read them."""
    table = RESPELL[lang]
    if not table:
        return text
    return re.sub(r"\w+", lambda m: table.get(m.group(0), m.group(0)), text)

def spelled(word: str, lang: Lang) -> bool:
    """True when ``word`` (a word of a game in ``lang``) cannot be said as a word: it has no vowel."""
    return not any(ch in _VOWELS[lang] for ch in word.upper())


_LETTER_SAY: dict[Lang, dict[str, str]] = {"de": {}, "fr": {}, "en": {"A": "[['eI]]"}}
"""Letters espeak-ng would not read as letter names: English A before "and" is the article."""


def _letters(letters: Sequence[str], lang: Lang, sep: str = ", ") -> _Said:
    """Letters named in ``lang`` (espeak-ng reads a lone letter as its name), ``sep`` between."""
    names = _LETTER_SAY[lang]
    upper = [ch.upper() for ch in letters]
    return _Said(sep.join(upper), sep.join(names.get(ch, ch) for ch in upper), lang)


def spell(word: str, lang: Lang) -> _Said:
    """``word`` letter by letter in ``lang`` ("R, O, S, E, X")."""
    return _letters(list(word), lang)


def _word(word: str, lang: Lang, shown: Lang) -> _Said:
    """A word of the board: said as a word by ``lang``'s voice, or spelled in ``shown``'s."""
    if spelled(word, lang):
        return spell(word, shown)
    return _Said(word.upper(), speakable(word, lang), lang)


def _list(items: Sequence[_Said], lang: Lang) -> _Said:
    """``A, B und C``."""
    last = TEXT["and"][lang]
    if len(items) <= 1:
        return items[0] if items else _Said("", "", lang)
    head = [*items[:-1]]
    text = ", ".join(i.text for i in head) + last + items[-1].text
    say = ", ".join(i.say for i in head) + last + items[-1].say
    return _Said(text, say, lang)


def _join_said(items: Sequence[_Said], lang: Lang) -> list[_Said]:
    """``A, B und C`` keeping each item's voice (a name may be said by another language's)."""
    out: list[_Said] = []
    for i, item in enumerate(items):
        if i:
            sep = TEXT["and"][lang] if i == len(items) - 1 else ", "
            out.append(_Said(sep, sep, lang))
        out.append(item)
    return out


def _compose(key: str, lang: Lang, **fields: str | _Said | list[_Said]) -> list[Part]:
    """The template ``key`` of ``lang`` with ``fields`` filled in, as parts."""
    parts: list[Part] = []

    def add(text: str, say: str, voice: Lang) -> None:
        if parts and parts[-1].lang == voice:
            last = parts.pop()
            parts.append(Part(last.text + text, last.say + say, voice))
        elif text:
            parts.append(Part(text, say, voice))

    for literal, name, _, _ in string.Formatter().parse(TEXT[key][lang]):
        add(literal, respell(literal, lang), lang)
        if name is None:
            continue
        value = fields[name]
        if isinstance(value, list):
            for said in value:
                add(said.text, said.say, said.lang)
        elif isinstance(value, _Said):
            add(value.text, value.say, value.lang)
        else:
            add(value, respell(value, lang), lang)
    return parts

def _join(*groups: list[Part]) -> tuple[Part, ...]:
    """Parts of several templates in order, neighbours of one voice merged."""
    out: list[Part] = []
    for part in (p for group in groups for p in group):
        if out and out[-1].lang == part.lang:
            last = out.pop()
            part = Part(last.text + part.text, last.say + part.say, part.lang)
        out.append(part)
    return tuple(out)

def announcement(speech: Speech, lang: Lang, names: Sayings | None = None) -> Announcement:
    """The words of ``speech`` in ``lang``, the display's language; players' names said as
    ``names`` tells (:data:`Sayings`), the others as written."""
    table = dict(names or {})
    folded = {k.casefold(): v for k, v in table.items()}

    def say(name: str) -> str | _Said:
        saying = table.get(name, folded.get(name.casefold()))
        if saying is None:
            return name
        if isinstance(saying, str):
            if saying in LANGUAGES:  # said by that language's voice
                return _Said(name, name, saying)
            return _Said(name, saying, lang)
        said = saying.get(lang)
        return _Said(name, said, lang) if said else name

    return Announcement(kind_of(speech), _parts(speech, lang, say))


_Name = Callable[[str], "str | _Said"]


def _parts(speech: Speech, lang: Lang, say: _Name) -> tuple[Part, ...]:
    match speech:
        case PlaySpeech():
            return _play(speech, lang, say)
        case PassSpeech(player=player):
            return _join(_compose("pass", lang, name=say(player)))
        case ExchangeSpeech(player=player, count=n):
            return _join(_compose("exchange", lang, name=say(player), tiles=count(n, "tile", lang, accusative=True)))
        case RulingSpeech():
            return _ruling(speech, lang, say)
        case TurnSpeech(player=player):
            return _join(_compose("turn", lang, name=say(player)))
        case TimeSpeech():
            return _time(speech, lang, say)
        case TallySpeech():
            return _tally(speech, lang, say)
        case _:
            assert_never(speech)

def _play(s: PlaySpeech, lang: Lang, say: _Name) -> tuple[Part, ...]:
    blanks = [ch.upper() for ch in s.word if ch.islower()]
    key = "play" if not blanks else "play.blanks" if len(blanks) == 1 else "play.two_blanks"
    fields: dict[str, str | _Said] = {
        "name": say(s.player), "word": _word(s.word, s.lang, lang), "points": count(s.points, "point", lang),
    }
    if blanks:
        fields["letters"] = _list([_letters(b, lang) for b in blanks], lang)
    said = _compose(key, lang, **fields)
    return _join(said, _compose("play.bingo", lang)) if s.bingo else _join(said)

def _ruling(s: RulingSpeech, lang: Lang, say: _Name) -> tuple[Part, ...]:
    groups = [_compose("ruling.overridden", lang) if s.overridden else _compose("ruling.by", lang, name=say(s.challenger))]
    if s.valid:
        main = s.words[0] if s.words else ""
        groups.append(_compose("ruling.valid", lang, word=_word(main, s.lang, lang)))
    else:
        spelt = [spell(w, lang) for w in s.words]  # a full stop between words: the letters run on
        words = _Said(". ".join(w.text for w in spelt), ". ".join(w.say for w in spelt), lang)
        groups.append(_compose("ruling.invalid", lang, words=words))
        groups.append(_compose("ruling.withdraw", lang, name=say(s.player)))
    points = count(abs(s.points), "point", lang, accusative=True)
    if s.points < 0:
        groups.append(_compose("ruling.penalty", lang, name=say(s.challenger), points=points))
    elif s.points > 0:
        groups.append(_compose("ruling.bonus", lang, name=say(s.player), points=points))
    if s.lost_turn:
        groups.append(_compose("ruling.lost_turn", lang, name=say(s.challenger)))
    if s.lost_game:
        groups.append(_compose("ruling.lost_game", lang, name=say(s.lost_game)))
    elif s.valid and not s.points and not s.lost_turn:
        groups.append(_compose("ruling.no_penalty", lang))
    return _join(*groups)

def _time(s: TimeSpeech, lang: Lang, say: _Name) -> tuple[Part, ...]:
    if s.left_s <= 0:
        return _join(_compose("time.move_up" if s.move else "time.up", lang, name=say(s.player)))
    minutes, seconds = divmod(s.left_s, 60)
    time = count(minutes, "minute", lang) if minutes and not seconds else count(s.left_s, "second", lang)
    que = "qu'" if time.startswith("un") else "que "  # French elides before "un", "une"
    return _join(_compose("time.move_left" if s.move else "time.left", lang, name=say(s.player), time=time, que=que))

def _tally(s: TallySpeech, lang: Lang, say: _Name) -> tuple[Part, ...]:
    groups = [_compose("tally", lang)]
    groups += [
        _compose("tally.row", lang, name=say(name), points=count(points, "point", lang)) for name, points in s.rows
    ]
    if len(s.winners) == 1:
        groups.append(_compose("tally.winner", lang, name=say(s.winners[0])))
    elif s.winners:
        names = [said if isinstance(said := say(n), _Said) else _Said(n, respell(n, lang), lang) for n in s.winners]
        groups.append(_compose("tally.tie", lang, names=_join_said(names, lang)))
    return _join(*groups)

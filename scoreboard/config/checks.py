"""What a configuration key allows, and the errors that say so.

A :class:`Check` turns a TOML value into the typed value or raises :class:`ConfigError`
saying what is allowed (``7 or 9``, ``a whole number, 0 or more``...); the loader adds the
key and the file. :func:`toml_value` writes values as TOML for messages.
"""

from __future__ import annotations

import datetime
import difflib
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, cast

import tomli_w

from engine.errors import ScoreboardError

__all__ = [
    "SET_SOURCE", "AutoOr", "Check", "ConfigChoiceError", "ConfigError", "ConfigPinClashError", "ConfigRangeError",
    "ConfigTypeError", "DirPath", "Names", "Numbers", "OneOf", "Pattern", "Patterns", "Sayings", "Subset", "Text", "Whole", "closest",
    "show",
    "toml_value", "value_kind",
]

SET_SOURCE = "--set"
"""The ``source`` of a :class:`ConfigError` raised by a ``--set`` override."""


class ConfigError(ScoreboardError, ValueError):
    """A configuration file, ``--set`` override or state directory that cannot be used.

    The message reads ``SOURCE: KEY: what is wrong; what is allowed``. ``key`` is the
    dotted key (or section) concerned, None when the file as a whole is bad; ``source``
    is the file or ``--set`` the value came from, when known.
    """

    def __init__(
        self, message: str, *, key: str | None = None, source: str | Path | None = None
    ) -> None:
        self.message = message
        self.key = key
        self.source = str(source) if source is not None else None
        super().__init__(": ".join(p for p in (self.source, key, message) if p))

    def at(self, key: str | None, source: str | Path | None) -> ConfigError:
        """The same error (same class and data), naming ``key`` and ``source``."""
        located = type(self).__new__(type(self))  # no __init__: its arguments differ per class
        located.__dict__.update(self.__dict__)
        located.key, located.source = key, str(source) if source is not None else None
        located.args = (": ".join(p for p in (located.source, key, self.message) if p),)
        return located

    def with_source(self, source: str | Path | None) -> ConfigError:
        """The same error, naming ``source`` as where the value came from."""
        return self.at(self.key, source)


class ConfigPinClashError(ConfigError):
    """One GPIO wanted by two keys of different sections: ``pin``, and ``keys`` (the first is
    ``key``; the loader names the one the file or ``--set`` gave, when only one was)."""

    def __init__(self, message: str, *, pin: int, keys: tuple[str, str]) -> None:
        super().__init__(message, key=keys[0])
        self.pin, self.keys = pin, keys


class ConfigTypeError(ConfigError):
    """A key given the wrong kind of TOML value: ``value`` is it, ``expects`` what fits."""

    def __init__(self, message: str, *, value: object, expects: str) -> None:
        super().__init__(message)
        self.value, self.expects = value, expects


class ConfigChoiceError(ConfigError):
    """A value that is none of its key's ``choices``; ``value`` is it."""

    def __init__(self, message: str, *, value: object, choices: tuple[str | int, ...]) -> None:
        super().__init__(message)
        self.value, self.choices = value, choices


class ConfigRangeError(ConfigError):
    """A whole number outside its key's range ``low`` to ``high``; ``value`` is it."""

    def __init__(self, message: str, *, value: int, low: int, high: int) -> None:
        super().__init__(message)
        self.value, self.low, self.high = value, low, high


# --- TOML values in messages ---------------------------------------------------------------


def toml_value(value: object) -> str:
    """``value`` as a TOML value on one line (tomli-w writes each scalar and key)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    if isinstance(value, Mapping):
        pairs = (f"{tomli_w.dumps({str(k): 0})[:-5]} = {toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, (datetime.date, datetime.time)):  # tomli-w: a space for the T
        return value.isoformat()
    return tomli_w.dumps({"v": value})[4:-1].replace("\t", "\\t")  # "v = VALUE\n"; \t as before


def show(value: object, limit: int = 60) -> str:
    """``value`` as TOML, shortened for a message."""
    text = toml_value(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_KINDS = (
    (bool, "a boolean"),  # before int: TOML true is no number
    (int, "a whole number"),
    (float, "a decimal number"),
    (str, "a string"),
    (list, "a list"),
    (dict, "a table"),
)


def value_kind(value: object) -> str:
    """What kind of TOML value ``value`` is, for a message."""
    return next((kind for type_, kind in _KINDS if isinstance(value, type_)), "a date/time")


def _one_of(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def closest(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate closest to ``word`` (ignoring case), if any is close."""
    folded = {c.casefold(): c for c in candidates}
    match = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=0.6)
    return folded[match[0]] if match else None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # TOML true is not 1


# --- what a key allows ---------------------------------------------------------------------


class Check:
    """What a key allows: turns a TOML value into the typed value, or raises
    :class:`ConfigError` (without key: the loader adds it) saying what is allowed."""

    expects = "a value"  # the kind of TOML value wanted, for "is a string, not ..."

    def __init__(self, allowed: str) -> None:
        self.allowed = allowed  # for messages and the generated file: "7 or 9"

    def __call__(self, value: Any) -> Any:
        raise NotImplementedError

    def fail(self, problem: str) -> ConfigError:
        """The error ``problem; use ALLOWED``."""
        return ConfigError(f"{problem}; use {self.allowed}")

    def wrong_type(self, value: object) -> ConfigTypeError:
        """The error for a value of the wrong TOML type."""
        problem = f"{show(value)} is {value_kind(value)}, not {self.expects}"
        return ConfigTypeError(f"{problem}; use {self.allowed}", value=value, expects=self.expects)

    def not_allowed(self, value: object, hint: str = "") -> ConfigError:
        """The error for a value of the right type that is not allowed."""
        return self.fail(f"{show(value)} is not allowed{hint}")


class OneOf(Check):
    """One of a few strings (a near miss is suggested), whole numbers or booleans."""

    def __init__(self, *choices: str | int) -> None:
        super().__init__(_one_of([toml_value(c) for c in choices]))
        self.choices = choices
        self.expects = value_kind(choices[0])

    def __call__(self, value: Any) -> Any:
        if type(value) is not type(self.choices[0]):  # bool is no int here
            raise self.wrong_type(value)
        if value not in self.choices:
            guess = (
                closest(value, [str(c) for c in self.choices]) if isinstance(value, str) else None
            )
            hint = f" (did you mean {toml_value(guess)}?)" if guess else ""
            raise ConfigChoiceError(
                f"{show(value)} is not allowed{hint}; use {self.allowed}", value=value, choices=self.choices
            )
        return value


class Whole(Check):
    """A whole number from ``low`` to ``high``, or one of ``also``; others raise
    :class:`ConfigRangeError`."""

    expects = "a whole number"

    def __init__(self, low: int, high: int, allowed: str = "", also: tuple[int, ...] = ()) -> None:
        super().__init__(allowed or f"a whole number, {low} to {high}")
        self.low, self.high, self.also = low, high, also

    def __call__(self, value: Any) -> int:
        if not _is_int(value):
            raise self.wrong_type(value)
        if value not in self.also and not self.low <= value <= self.high:
            raise ConfigRangeError(
                f"{show(value)} is not allowed; use {self.allowed}",
                value=value,
                low=self.low,
                high=self.high,
            )
        return cast(int, value)


class AutoOr(Check):
    """``"auto"`` or a whole number, ``low`` to ``high``."""

    expects = '"auto" or a whole number'

    def __init__(self, low: int, high: int) -> None:
        super().__init__(f'"auto" or a whole number, {low} to {high}')
        self.number = Whole(low, high, allowed=self.allowed)
        self.number.expects = self.expects

    def __call__(self, value: Any) -> int | Literal["auto"]:
        if value == "auto":
            return "auto"
        if isinstance(value, str):
            raise self.not_allowed(value)
        return self.number(value)


class Text(Check):
    """A non-empty string on one line."""

    expects = "a string"

    def __init__(self) -> None:
        super().__init__("a non-empty string")

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.wrong_type(value)
        if not value.strip() or any(ord(ch) < 32 for ch in value):
            raise self.not_allowed(value)
        return value


class DirPath(Check):
    """``""`` (the default location), an absolute path or a path starting with ``~``."""

    expects = "a string"

    def __init__(self) -> None:
        super().__init__('"" (the default), an absolute path or a path starting with ~')

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.wrong_type(value)
        if "\0" in value:
            raise self.not_allowed(value, " (it contains a NUL character)")
        if value and not (value.startswith("~") or os.path.isabs(value)):
            raise self.not_allowed(value, " (a relative path)")
        return value


class Names(Check):
    """A list of ``low`` to ``high`` distinct, non-empty names (stripped of outer spaces);
    with ``auto`` also ``"auto"``."""

    expects = "a list of names"

    def __init__(self, low: int, high: int, auto: bool = False) -> None:
        names = f'a list of {low} to {high} distinct names, e.g. ["Anna", "Ben"]'
        super().__init__(f'"auto" or {names}' if auto else names)
        self.counts = range(low, high + 1)
        self.auto = auto

    def __call__(self, value: Any) -> tuple[str, ...] | Literal["auto"]:
        if self.auto and value == "auto":
            return "auto"
        if not isinstance(value, list):
            raise self.wrong_type(value)
        names: list[str] = []
        for number, item in enumerate(value, 1):
            if not isinstance(item, str):
                raise self.fail(f"name {number} ({show(item)}) is {value_kind(item)}, not a string")
            name = item.strip()
            if not name:
                raise self.fail(f"name {number} is empty")
            if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
                raise self.fail(f"name {number} ({show(item)}) contains a control character")
            names.append(name)
        if len(names) not in self.counts:
            raise self.fail(f"{show(value)} has {len(names)} name{'' if len(names) == 1 else 's'}")
        seen: dict[str, str] = {}
        for name in names:
            other = seen.get(name.casefold())
            if other is not None:
                same = "is given twice" if other == name else f"and {show(name)} are the same name"
                raise self.fail(f"{show(other)} {same}")
            seen[name.casefold()] = name
        return tuple(names)


class Numbers(Check):
    """A list of whole numbers 0 to ``top`` (pins, channels), as many as ``counts`` allows."""

    def __init__(self, item: str, top: int, counts: range, distinct: bool, allowed: str) -> None:
        super().__init__(allowed)
        self.item, self.top, self.counts, self.distinct = item, top, counts, distinct
        self.expects = f"a list of {item}s"

    def __call__(self, value: Any) -> tuple[int, ...]:
        if not isinstance(value, list):
            raise self.wrong_type(value)
        for number, item in enumerate(value, 1):
            if not _is_int(item) or not 0 <= item <= self.top:
                raise self.fail(f"{self.item} {number} ({show(item)}) is not allowed")
        if len(value) not in self.counts:
            raise self.fail(f"{show(value)} has {len(value)} {self.item}s")
        if self.distinct and len(set(value)) != len(value):
            raise self.fail(f"{show(value)} gives a {self.item} twice")
        return tuple(value)


def _no_choice(problem: str, item: str, choices: tuple[str, ...], allowed: str) -> ConfigChoiceError:
    """The error for ``item``, none of ``choices``: ``problem``, a near miss, what is allowed."""
    guess = closest(item, choices)
    hint = f" (did you mean {toml_value(guess)}?)" if guess else ""
    return ConfigChoiceError(f"{problem}{hint}; use {allowed}", value=item, choices=choices)


class Subset(Check):
    """A list of distinct strings, each one of ``choices`` (a near miss is suggested); an
    item that is none raises :class:`ConfigChoiceError`."""

    expects = "a list of strings"

    def __init__(self, *choices: str) -> None:
        super().__init__(f"a list of any of {_one_of([toml_value(c) for c in choices])}, each once")
        self.choices = choices

    def __call__(self, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.wrong_type(value)
        for number, item in enumerate(value, 1):
            if not isinstance(item, str):
                raise self.fail(f"item {number} ({show(item)}) is {value_kind(item)}, not a string")
            if item not in self.choices:
                raise _no_choice(f"item {number} ({show(item)}) is not allowed", item, self.choices, self.allowed)
        if len(set(value)) != len(value):
            raise self.fail(f"{show(value)} gives an item twice")
        return tuple(value)


class Pattern(Check):
    """A string that matches the regular expression ``pattern`` whole (a name of a thing
    outside the scoreboard: a voice, an audio device)."""

    expects = "a string"

    def __init__(self, pattern: str, allowed: str) -> None:
        super().__init__(allowed)
        self.pattern = re.compile(pattern)

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.wrong_type(value)
        if not self.pattern.fullmatch(value):
            raise self.not_allowed(value)
        return value


class Patterns(Check):
    """A list of at most ``high`` distinct strings, each matching ``pattern`` whole (an ``item``:
    a table's name)."""

    expects = "a list of strings"

    def __init__(self, pattern: str, item: str, high: int, allowed: str) -> None:
        super().__init__(allowed)
        self.pattern, self.item, self.high = re.compile(pattern), item, high

    def __call__(self, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.wrong_type(value)
        for number, item in enumerate(value, 1):
            if not isinstance(item, str):
                raise self.fail(f"{self.item} {number} ({show(item)}) is {value_kind(item)}, not a string")
            if not self.pattern.fullmatch(item):
                raise self.fail(f"{self.item} {number} ({show(item)}) is not allowed")
        if len(value) > self.high:
            raise self.fail(f"{show(value)} has {len(value)} {self.item}s")
        if len(set(value)) != len(value):
            raise self.fail(f"{show(value)} gives a {self.item} twice")
        return tuple(value)


def _said(value: object, what: str, fail: Any) -> str:
    """A respelling or language: a non-empty string without control characters."""
    if not isinstance(value, str):
        raise fail(f"{what} ({show(value)}) is {value_kind(value)}, not a string")
    if not value.strip():
        raise fail(f"{what} is empty")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        raise fail(f"{what} ({show(value)}) contains a control character")
    if len(value) > 100:
        raise fail(f"{what} is longer than 100 characters")
    return value.strip()


class Sayings(Check):
    """How names are said: a table of names (distinct, ignoring case), each to a language of
    ``languages`` (its voice says the name), a respelling, or a table of respellings by
    language; a language key that is none of ``languages`` raises :class:`ConfigChoiceError`."""

    expects = "a table"

    def __init__(self, *languages: str) -> None:
        langs = _one_of([toml_value(c) for c in languages])
        super().__init__(
            f'a table of names, each to a language ({langs}: its voice says the name), a respelling'
            f' or a table of respellings by language, e.g. {{"Françoise" = "fr", "Jürgen" = {{en = "Yuergen"}}}}'
        )
        self.languages = languages

    def __call__(self, value: Any) -> dict[str, str | dict[str, str]]:
        if not isinstance(value, dict):
            raise self.wrong_type(value)
        out: dict[str, str | dict[str, str]] = {}
        seen: dict[str, str] = {}
        for name, saying in value.items():
            name = _said(name, "a name", self.fail)
            other = seen.get(name.casefold())
            if other is not None:
                raise self.fail(f"{show(other)} and {show(name)} are the same name")
            seen[name.casefold()] = name
            if isinstance(saying, dict):
                table: dict[str, str] = {}
                for lang, said in saying.items():
                    if lang not in self.languages:
                        raise _no_choice(f"{show(name)}: {show(lang)} is no language", lang, self.languages,
                                         _one_of([toml_value(c) for c in self.languages]))
                    table[lang] = _said(said, f"{show(name)}'s {lang} respelling", self.fail)
                out[name] = table
            else:
                out[name] = _said(saying, f"how {show(name)} is said", self.fail)
        return out

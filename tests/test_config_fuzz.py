"""Seeded fuzzing of every numeric configuration key: refused cleanly or accepted in range.

Each numeric key gets random values (huge, negative, 0, the edges of its range, floats with
NaN and infinities, booleans, strings, lists, tables) through ``--set`` and through a file.
Every outcome is a :class:`Config` whose value is within the key's range, or a
:class:`ConfigError` naming the key; a number out of range is a :class:`ConfigRangeError`
carrying the value and the range, a wrong kind of value a :class:`ConfigTypeError`.
"""

from __future__ import annotations

import datetime
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faultlog
import pytest
import tomli_w

from scoreboard.config import (
    KEYS,
    ConfigChoiceError,
    ConfigError,
    ConfigRangeError,
    ConfigTypeError,
    load_config,
    toml_value,
)
from scoreboard.config.checks import AutoOr, Check, Numbers, OneOf, Whole
from scoreboard.config.sections import allowed

SEED = 12


@dataclass(frozen=True)
class Bounds:
    """What a numeric key allows: ``low`` to ``high`` and ``also`` (Whole), or ``choices`` only."""

    low: int
    high: int
    also: tuple[int, ...] = ()
    choices: tuple[int, ...] | None = None

    def allows(self, n: int) -> bool:
        return n in self.choices if self.choices is not None else self.low <= n <= self.high or n in self.also


def _bounds(check: Check) -> Bounds | None:
    """What a numeric check allows, None for keys that are not numbers."""
    if isinstance(check, AutoOr):
        check = check.number
    if isinstance(check, Whole):
        return Bounds(check.low, check.high, check.also)
    if isinstance(check, OneOf) and type(check.choices[0]) is int:
        ints = tuple(int(c) for c in check.choices)
        return Bounds(min(ints), max(ints), choices=ints)
    return None


NUMERIC = {k: b for k, a in KEYS.items() if (b := _bounds(allowed(a))) is not None}
LISTS = {k: allowed(a) for k, a in KEYS.items() if isinstance(allowed(a), Numbers)}


def test_every_numeric_key_has_an_upper_bound() -> None:
    assert {k for k, a in KEYS.items() if type(a.default) is int} == NUMERIC.keys() - {"game.overtime"}
    for b in NUMERIC.values():
        assert b.low <= b.high < 10**7


def _value(rng: random.Random, low: int, high: int) -> Any:
    """A random TOML value, most of them numbers near or far from ``low``..``high``."""
    pick = rng.randrange(12)
    if pick == 0:
        return rng.choice([low, high, low - 1, high + 1, 0, -1])
    if pick == 1:
        return rng.randint(low, high)
    if pick == 2:
        return rng.choice([-1, 1]) * rng.randint(high, 2**63 - 1)  # TOML integers are 64-bit
    if pick == 3:
        return rng.randint(-(10**6), 10**6)
    if pick == 4:
        return rng.choice([math.nan, math.inf, -math.inf, 1e308, -0.0, 0.5, float(low), high + 0.5])
    if pick == 5:
        return rng.choice([True, False])
    if pick == 6:
        return rng.choice(["", "auto", str(low), "inf", "ten", "0x10"])
    if pick == 7:
        return [rng.randint(-5, 50) for _ in range(rng.randrange(6))]
    if pick == 8:
        return {"n": low}
    if pick == 9:
        return datetime.date(2026, 1, 1)
    return rng.randint(low - 10, high + 10)


def _check_outcome(key: str, value: Any, bounds: Bounds, run: Any) -> str:
    """Load with ``run`` and check the outcome; returns "accepted" or the error's class name."""
    try:
        config = run()
    except (ConfigRangeError, ConfigChoiceError) as e:
        assert e.key == key and e.value == value and not bounds.allows(value)
        if isinstance(e, ConfigRangeError):
            assert (e.low, e.high) == (bounds.low, bounds.high)
        else:
            assert e.choices == bounds.choices
        assert f"{key}: {toml_value(value)} is not allowed; use {allowed(KEYS[key]).allowed}" in str(e)
        return type(e).__name__
    except ConfigTypeError as e:
        assert e.key == key and toml_value(e.value) == toml_value(value)
        assert isinstance(value, bool) or not isinstance(value, int)
        assert f"{key}: " in str(e) and str(e).endswith(f"; use {allowed(KEYS[key]).allowed}")
        return type(e).__name__
    except ConfigError as e:  # a word for "auto", or keys that do not fit together
        assert e.key is not None and e.key.split(".")[0] == key.split(".")[0], str(e)
        return type(e).__name__
    section, name = key.split(".")
    got = getattr(getattr(config, section), name)
    if got == "auto":
        assert value == "auto"
    else:
        assert type(got) is int and got == value and bounds.allows(got)
    return "accepted"


def _fuzz(count: int, seed: int, tmp_path: Path) -> dict[str, int]:
    rng = random.Random(seed)
    outcomes: dict[str, int] = {}
    for n in range(count):
        key = rng.choice(sorted(NUMERIC))
        bounds = NUMERIC[key]
        value = _value(rng, bounds.low, bounds.high)
        if n % 2:
            section, name = key.split(".")
            file = tmp_path / "fuzz.toml"
            file.write_text(tomli_w.dumps({section: {name: value}}), encoding="utf-8")
            outcome = _check_outcome(key, value, bounds, lambda file=file: load_config(file))
        else:
            overrides = [f"{key}={toml_value(value)}"]
            outcome = _check_outcome(key, value, bounds, lambda overrides=overrides: load_config(overrides=overrides))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return outcomes


def _fuzz_lists(count: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        key = rng.choice(sorted(LISTS))
        items = [rng.choice([-1, 0, 7, 8, 27, 28, 2**40, 1.5, math.nan, "x"]) for _ in range(rng.randrange(6))]
        try:
            config = load_config(overrides=[f"{key}={toml_value(items)}"])
        except ConfigError as e:
            assert e.key is not None and e.key.split(".")[0] == key.split(".")[0]
            continue
        section, name = key.split(".")
        assert all(type(i) is int and 0 <= i <= LISTS[key].top for i in getattr(getattr(config, section), name))


def test_fuzzed_numeric_values_are_refused_cleanly_or_accepted_in_range(tmp_path: Path) -> None:
    outcomes = _fuzz(1000, SEED, tmp_path)
    _fuzz_lists(150, SEED)
    faultlog.injected("fuzzed config value", 1150)
    # the fuzzer reaches every outcome, so each branch of the checks above was exercised
    assert {"accepted", "ConfigRangeError", "ConfigTypeError"} <= outcomes.keys()
    assert min(outcomes["accepted"], outcomes["ConfigRangeError"], outcomes["ConfigTypeError"]) > 50


@pytest.mark.soak
def test_fuzzed_numeric_values_soak(tmp_path: Path) -> None:
    for seed in range(10):
        _fuzz(3000, seed, tmp_path)
        _fuzz_lists(300, seed)
    faultlog.injected("fuzzed config value (soak)", 10 * 3300)


def test_a_huge_stable_reports_is_refused_with_key_value_and_range() -> None:
    with pytest.raises(ConfigRangeError) as info:
        load_config(overrides=["board.stable_reports=1000000"])
    e = info.value
    assert (e.key, e.value, e.low, e.high, e.source) == ("board.stable_reports", 1000000, 1, 10, "--set")
    assert str(e) == "--set: board.stable_reports: 1000000 is not allowed; use a whole number, 1 to 10"


def test_a_float_for_a_whole_number_is_a_type_error_naming_the_range() -> None:
    with pytest.raises(ConfigTypeError) as info:
        load_config(overrides=["game.clock=inf"])
    assert info.value.key == "game.clock" and info.value.value == math.inf
    assert str(info.value) == "--set: game.clock: inf is a decimal number, not a whole number; use a whole number, 0 to 300"


def test_the_read_timeout_must_outlast_the_stable_time() -> None:
    with pytest.raises(ConfigError, match=r"board.read_timeout_ms: 1000 is not more than board.stable_ms \(2000\)") as info:
        load_config(overrides=["board.stable_ms=2000", "board.read_timeout_ms=1000"])
    assert info.value.key == "board.read_timeout_ms"

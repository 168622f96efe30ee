"""The session's tally of injected faults: how many of each kind, and how many were survived.

Fault tests call :func:`record` with the outcome they checked (``record("frame: drop",
survived)``), or :func:`injected` for faults whose outcome is the test's own: those are
settled when the test ends (survived if it passed; ``tests/conftest.py`` does that).
``tests/conftest.py`` prints the totals at the end of the run and fails the run when a
recorded fault was not survived. A test marked ``xfail`` (a known product failure, written
down with its reason) settles its injected faults as *known* failures: printed, not
counted as survived, and not failing the run until the mark is taken off.
"""

from __future__ import annotations

from collections import Counter

__all__ = ["injected", "known", "not_survived", "record", "settle", "summary", "totals"]

_injected: Counter[str] = Counter()
_survived: Counter[str] = Counter()
_known: Counter[str] = Counter()  # not survived, in an xfail test: a known product failure
_pending: Counter[str] = Counter()


def record(kind: str, survived: bool, count: int = 1) -> None:
    """``count`` faults of ``kind`` were injected; ``survived``: the product came through them."""
    if count < 0:
        raise ValueError(f"a count of 0 or more, not {count!r}")
    _injected[kind] += count
    if survived:
        _survived[kind] += count


def injected(kind: str, count: int = 1) -> None:
    """``count`` faults of ``kind`` were injected; survived if the running test passes."""
    if count < 0:
        raise ValueError(f"a count of 0 or more, not {count!r}")
    _pending[kind] += count


def settle(outcome: str) -> None:
    """The running test ended (``passed``, ``failed`` or ``xfailed``): settle its :func:`injected` faults."""
    for kind, count in _pending.items():
        if outcome == "xfailed":
            _known[kind] += count
        else:
            record(kind, outcome == "passed", count)
    _pending.clear()


def known() -> dict[str, int]:
    """Kind -> faults not survived in tests marked xfail (known product failures)."""
    return dict(sorted(_known.items()))


def totals() -> tuple[int, int]:
    """(faults injected, faults survived) so far."""
    return sum(_injected.values()), sum(_survived.values())


def not_survived() -> dict[str, int]:
    """Kind -> how many faults of that kind were not survived (only kinds with some)."""
    return {k: _injected[k] - _survived[k] for k in sorted(_injected) if _injected[k] > _survived[k]}


def summary() -> list[str]:
    """The lines to print: the totals, then one line per kind (empty when nothing was injected)."""
    total, survived = totals()
    known_total = sum(_known.values())
    if not total and not known_total:
        return []
    kinds = sorted(set(_injected) | set(_known))
    width = max(len(k) for k in kinds)
    head = f"faults injected: {total}, survived: {survived}"
    if known_total:
        head += f" (and {known_total} more in xfail tests: known product failures, not survived)"
    lines = [head]
    for kind in kinds:
        if kind in _injected:
            mark = "" if _injected[kind] == _survived[kind] else "   <-- NOT SURVIVED"
            lines.append(f"  {kind:<{width}}  {_injected[kind]:4d} injected, {_survived[kind]:4d} survived{mark}")
        if kind in _known:
            lines.append(f"  {kind:<{width}}  {_known[kind]:4d} injected, known failure (xfail)")
    return lines

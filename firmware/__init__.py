"""MicroPython firmware of the board controller (an RP2040 under the board).

The modules run on the controller and, except ``hal_rp2`` and ``main``, under CPython in
the tests: ``frames`` (the link protocol, byte for byte as ``drivers/board/protocol.py``),
``iso14443a`` (the anticollision logic), ``scanner`` (scan schedule and debounce),
``controller`` (the main loop), ``hal`` (the hardware interface) with ``hal_fake`` (a
virtual board on a virtual clock) and ``hal_rp2`` (the real thing). The timing model is
in ``TIMING.md`` beside this file.

Everything here stays MicroPython-compatible: no dataclasses, no enum, no typing at run
time, no f-strings, ``struct`` and ``binascii`` only.
"""

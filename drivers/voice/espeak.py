"""espeak-ng as the voice: text to a WAV, then to ALSA (aplay) or to a file per announcement.

:class:`Espeak` runs ``espeak-ng --stdout`` once per part of an utterance (a part is said by
the voice of its language), text on stdin (so a text that begins with "-" is no option, and
no command line is too long), UTF-8 (``-b 1``, whatever the service's locale), and joins the
parts' samples into one WAV. A sink plays it: :class:`AlsaSink` through ``aplay -D DEVICE``
(the Pi's output; espeak-ng's own audio output cannot choose a device), :class:`WavFolder`
into numbered files with a ``voice.txt`` index (``--simulate``). Every process has a time
limit and is killed when it runs over or when the voice closes.
"""

from __future__ import annotations

import array
import io
import os
import re
import subprocess
import sys
import threading
import wave
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from .speaker import Utterance, VoiceError

__all__ = ["AlsaSink", "Espeak", "Sink", "WavFolder", "resample", "wav_duration", "wav_samples"]

RATE = 22050
"""espeak-ng's sample rate (16-bit mono), every voice."""


def wav_samples(data: bytes) -> tuple[int, bytes]:
    """The sample rate and the 16-bit mono samples of a WAV that espeak-ng wrote to a pipe
    (its sizes are left at their maximum there: the data is everything after ``data``)."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError("not a WAV file")
    position = 12
    rate = RATE
    while position + 8 <= len(data):
        chunk, size = data[position:position + 4], int.from_bytes(data[position + 4:position + 8], "little")
        if chunk == b"fmt ":
            channels = int.from_bytes(data[position + 10:position + 12], "little")
            rate = int.from_bytes(data[position + 12:position + 16], "little")
            bits = int.from_bytes(data[position + 22:position + 24], "little")
            if channels != 1 or bits != 16:
                raise ValueError(f"{channels} channels of {bits} bits, not 16-bit mono")
        elif chunk == b"data":
            samples = data[position + 8:position + 8 + size]
            return rate, samples[: len(samples) // 2 * 2]
        position += 8 + size + (size & 1)
    raise ValueError("a WAV without data")


def wav_duration(data: bytes) -> float:
    """Seconds of sound in a WAV (as :func:`wav_samples` reads it)."""
    rate, samples = wav_samples(data)
    return len(samples) / 2 / rate


def resample(samples: bytes, rate: int, target: int) -> bytes:
    """16-bit mono ``samples`` at ``rate`` as the same sound at ``target`` Hz (linear
    interpolation: speech between voices of different rates, not music)."""
    if rate == target or not samples:
        return samples
    source = array.array("h", samples)
    if sys.byteorder == "big":  # a WAV's samples are little-endian
        source.byteswap()
    count = max(1, round(len(source) * target / rate))
    step = rate / target
    last = len(source) - 1
    out = array.array("h", bytes(2 * count))
    for i in range(count):
        x = i * step
        j = min(int(x), last)
        k = min(j + 1, last)
        out[i] = round(source[j] + (source[k] - source[j]) * (x - j))
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()


def _wav(rate: int, samples: bytes) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples)
    return out.getvalue()


class _Processes:
    """Runs one process at a time with a time limit; :meth:`cancel` kills the running one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: subprocess.Popen[bytes] | None = None
        self._cancelled = False

    def run(self, command: Sequence[str], data: bytes, timeout: float) -> bytes:
        """``command``'s stdout for ``data`` on its stdin; :class:`VoiceError` when it is
        missing, fails, runs over ``timeout`` seconds or is cancelled."""
        program = os.path.basename(command[0])
        with self._lock:
            if self._cancelled:
                raise VoiceError(program, "the voice is closing")
            try:
                process = subprocess.Popen(
                    list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
                )
            except OSError as e:
                raise VoiceError(program, f"cannot be run ({e.strerror or e}); is it installed?") from None
            self._running = process
        try:
            out, err = process.communicate(data, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise VoiceError(program, f"took longer than {timeout:g} s and was stopped") from None
        finally:
            with self._lock:
                self._running = None
        if process.returncode:
            why = err.decode(errors="replace").strip().splitlines()
            raise VoiceError(program, f"exit status {process.returncode}" + (f": {why[-1]}" if why else ""))
        return out

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._running is not None and self._running.poll() is None:
                self._running.kill()


class Sink(Protocol):
    """Where a said utterance's WAV goes."""

    def play(self, wav: bytes, utterance: Utterance) -> None: ...

    def cancel(self) -> None:
        """Stop playing now (from another thread, when closing)."""


class AlsaSink:
    """Plays each WAV on the ALSA device ``device`` with ``aplay`` (alsa-utils)."""

    def __init__(self, device: str = "default", aplay: str = "aplay") -> None:
        self.device, self.aplay = device, aplay
        self.processes = _Processes()

    def play(self, wav: bytes, utterance: Utterance) -> None:
        limit = wav_duration(wav) + 5.0  # (a device that stalls is given up after the sound's length and then some)
        self.processes.run([self.aplay, "-q", "-D", self.device, "-"], wav, limit)

    def cancel(self) -> None:
        self.processes.cancel()


class WavFolder:
    """Writes each WAV into ``folder`` as ``NNNN-TOPIC.wav`` (written whole, then renamed) and
    a line ``NNNN-TOPIC.wav<TAB>text`` into ``folder/voice.txt``; numbering goes on after
    the files already there."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        numbers = [int(m.group(1)) for p in folder.glob("*.wav") if (m := re.match(r"([0-9]+)-", p.name))]
        self.count = max(numbers, default=0)

    def play(self, wav: bytes, utterance: Utterance) -> None:
        self.count += 1
        topic = re.sub(r"[^a-z0-9]+", "-", utterance.topic.lower()).strip("-") or "voice"
        final = self.folder / f"{self.count:04d}-{topic}.wav"
        part = final.with_name(final.name + ".part")
        part.write_bytes(wav)
        os.replace(part, final)
        with open(self.folder / "voice.txt", "a", encoding="utf-8") as index:
            index.write(f"{final.name}\t{utterance.text}\n")

    def cancel(self) -> None:
        """(Nothing runs: a file is written at once.)"""


class Espeak:
    """Says utterances with espeak-ng into ``sink``.

    ``voices``: a part's language to the espeak-ng voice that says it; ``speed`` in words per
    minute (``-s``), ``volume`` 0 to 200 (``-a``); ``timeout_s`` per espeak-ng run.
    """

    def __init__(
        self,
        voices: Mapping[str, str],
        sink: Sink,
        *,
        speed: int = 150,
        volume: int = 100,
        program: str = "espeak-ng",
        timeout_s: float = 10.0,
    ) -> None:
        self.voices = dict(voices)
        self.sink = sink
        self.speed, self.volume = speed, volume
        self.program = program
        self.timeout_s = timeout_s
        self.processes = _Processes()

    def command(self, voice: str) -> list[str]:
        """The espeak-ng command line for ``voice`` (the text goes on its stdin)."""
        return [self.program, "-v", voice, "-s", str(self.speed), "-a", str(self.volume), "-b", "1", "--stdout"]

    def synthesize(self, utterance: Utterance) -> bytes:
        """The WAV of ``utterance``: its parts' samples one after the other."""
        rate: int | None = None
        samples = bytearray()
        for text, lang in utterance.parts:
            out = self.processes.run(self.command(self.voices.get(lang, lang)), text.encode("utf-8"), self.timeout_s)
            try:
                part_rate, part = wav_samples(out)
            except ValueError as e:
                raise VoiceError(os.path.basename(self.program), f"wrote no usable WAV ({e})") from None
            rate = rate or part_rate  # the first part's rate: a voice of another (mbrola's 16 kHz) is resampled
            samples += resample(part, part_rate, rate)
        return _wav(rate or RATE, bytes(samples))

    def speak(self, utterance: Utterance) -> None:
        self.sink.play(self.synthesize(utterance), utterance)

    def cancel(self) -> None:
        self.processes.cancel()
        self.sink.cancel()

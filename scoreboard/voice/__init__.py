"""Spoken announcements: what the table says (models), in which words (text, numbers,
spelling); :mod:`drivers.voice` says it."""

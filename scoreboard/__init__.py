"""Scoreboard for an RFID Scrabble-style board running on a Raspberry Pi."""

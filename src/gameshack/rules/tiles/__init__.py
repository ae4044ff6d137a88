"""Tile Rummy (Rummikub rules) rules engine."""

"""Tile Rummy bots."""

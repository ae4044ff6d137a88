"""Rummy bots."""

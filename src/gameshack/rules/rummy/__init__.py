"""Rummy (500-rum style) rules engine."""

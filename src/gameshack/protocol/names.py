"""What a player may call themselves: one rule for display names and emoji, used everywhere a
name or emoji is taken (games, bots, accounts).

- A name is 1-24 characters after NFC normalisation and folding runs of white space to one
  space; no control, format (zero-width, bidi overrides), private-use, surrogate or unassigned
  characters.
- An emoji is one grapheme cluster (``regex``'s ``\\X``) that is a pictograph: a single emoji,
  with its skin tone, variation selector or zero-width-joiner sequence — not free text.
"""

from __future__ import annotations

import unicodedata

import regex

__all__ = ["DEFAULT_EMOJI", "MAX_NAME_LEN", "BadText", "clean_emoji", "clean_name"]

MAX_NAME_LEN = 24
DEFAULT_EMOJI = "🙂"
_FORBIDDEN = frozenset(("Cc", "Cf", "Co", "Cs", "Cn"))
_ONE_EMOJI = regex.compile(r"(?=\p{Extended_Pictographic}|\p{Regional_Indicator})\X")


class BadText(ValueError):
    """A name or emoji that can't be used; ``code`` for machines, the text for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def clean_name(raw: str) -> str:
    """The name as shown, or :class:`BadText` (``bad_name``)."""
    name = " ".join(unicodedata.normalize("NFC", str(raw or "")).split())
    if not name:
        raise BadText("bad_name", f"Please enter a display name (1–{MAX_NAME_LEN} characters).")
    if len(name) > MAX_NAME_LEN:
        raise BadText("bad_name", f"Names are at most {MAX_NAME_LEN} characters.")
    if any(unicodedata.category(ch) in _FORBIDDEN for ch in name):
        raise BadText("bad_name", "That name has characters that can't be shown.")
    return name


def clean_emoji(raw: str | None) -> str:
    """One emoji (the default when empty), or :class:`BadText` (``bad_emoji``)."""
    emoji = unicodedata.normalize("NFC", str(raw or "")).strip()
    if not emoji:
        return DEFAULT_EMOJI
    if len(emoji) > 16 or not _ONE_EMOJI.fullmatch(emoji):
        raise BadText("bad_emoji", "Pick one emoji.")
    return emoji

"""Random display names and emoji for computer opponents."""

from __future__ import annotations

import random

__all__ = ["EMOJIS", "NAMES", "bot_identity"]

NAMES = (
    "Ada", "Basil", "Clementine", "Dash", "Edie", "Felix", "Ginger", "Hugo", "Iris", "Jasper",
    "Kiki", "Leo", "Mabel", "Nico", "Olive", "Pip", "Quincy", "Rosie", "Sasha", "Theo",
    "Uma", "Vince", "Wren", "Xander", "Yara", "Ziggy", "Biscuit", "Pickles", "Maple", "Pepper",
)  # fmt: skip

EMOJIS = (
    "🦊", "🐻", "🐼", "🐨", "🐯", "🦁", "🐸", "🐵", "🦉", "🐙",
    "🦄", "🐢", "🦔", "🐧", "🦜", "🐝", "🦦", "🐳", "🦩", "🐺",
)  # fmt: skip


def bot_identity(rng: random.Random) -> tuple[str, str]:
    """A random (display name, emoji) for a bot; the caller's rng decides."""
    return rng.choice(NAMES), rng.choice(EMOJIS)

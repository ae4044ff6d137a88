"""Room codes (issue 32): five letters from an alphabet without look-alikes, never a blocked
word, for both games; lookups ignore case and still find games with the older digit codes."""

from __future__ import annotations

import random
import re
from pathlib import Path

from gameshack.service import GameService, Settings
from gameshack.service.codes import BLOCKED, CODE_LEN, CODE_LETTERS, draw_code, is_blocked
from gameshack.service.ports import GameRow, SeatRow
from gameshack.store import MemoryStore

SHAPE = re.compile(f"^[{CODE_LETTERS}]{{{CODE_LEN}}}$")


def test_the_alphabet_is_letters_without_look_alikes() -> None:
    assert CODE_LEN == 5  # the seed: "the 5-letter room code"
    assert CODE_LETTERS.isalpha() and CODE_LETTERS.isupper()
    assert len(set(CODE_LETTERS)) == len(CODE_LETTERS)
    assert not set(CODE_LETTERS) & set("ILOQUV")  # I/L/1, O/Q/0, U/V


def test_every_blocked_word_can_be_spelled_so_none_is_dead_weight() -> None:
    for word in BLOCKED:
        assert set(word) <= set(CODE_LETTERS), word


def test_drawn_codes_are_five_letters_and_never_contain_a_blocked_word() -> None:
    rng = random.Random(32)
    codes = [draw_code(rng) for _ in range(20_000)]
    assert all(SHAPE.match(c) for c in codes)
    assert not any(word in c for c in codes for word in BLOCKED)
    assert set("".join(codes)) == set(CODE_LETTERS)  # every letter is used


class _Spelled(random.Random):
    """Letters in a given order: the first draw spells a blocked word."""

    def __init__(self, letters: str) -> None:
        super().__init__(0)
        self.letters = list(letters)

    def choice(self, seq: str, /) -> str:  # type: ignore[override]
        letter = self.letters.pop(0)
        assert letter in seq
        return letter


def test_a_code_with_a_blocked_word_is_drawn_again() -> None:
    assert is_blocked("XWTFA") and is_blocked("xwtfa") and not is_blocked("XWTAF")
    rng = _Spelled("XWTFA" + "KRAPE" + "BHMAZ")
    assert draw_code(rng) == "BHMAZ"  # WTF, then RAPE: two draws thrown away
    assert rng.letters == []


def _settings() -> Settings:
    return Settings(data_dir=Path("."), database_url="", grace_seconds=0.05, bot_delay=0.0)


async def test_both_games_get_letter_codes_found_in_any_case() -> None:
    svc = GameService(MemoryStore(), _settings())
    for game, seats in (("rummy", 2), ("tiles", 2), ("rummy", 3), ("tiles", 4)):
        row = await svc.create_game(
            "d0",
            game=game,
            seats=seats,
            target=None,
            practice=False,
            difficulty=None,
            name="A",
            emoji="🦊",
        )
        assert SHAPE.match(row.code), row.code
        svc.rooms.clear()  # the lookup goes to the store, not the room in memory
        assert (await svc.room(f" {row.code.lower()} ")).row.code == row.code
        await svc.join_game(row.code.lower(), f"d-{game}-{seats}", "B", "🐻")
        assert len((await svc.room(row.code.title())).row.seats) == 2
    await svc.close()


async def test_a_game_with_an_older_digit_code_is_still_found() -> None:
    store = MemoryStore()
    svc = GameService(store, _settings())
    now = svc.clock()
    row = GameRow(
        code="AB3CD",
        kind="tiles",
        status="waiting",
        capacity=2,
        target=None,
        practice=False,
        difficulty=None,
        seed=1,
        seats=[SeatRow(0, "A", "🦊", "d0", joined_at=now)],
        created_at=now,
        updated_at=now,
        public_at=now,
    )
    await store.create_game(row)
    assert (await svc.room("ab3cd")).row.code == "AB3CD"
    await svc.close()

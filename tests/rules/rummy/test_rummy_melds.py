"""Cards, notation and meld validity, table-driven (the ace cases included)."""

from itertools import combinations

import pytest

from gameshack.rules.rummy import (
    MalformedAction,
    TableMeld,
    can_use_card,
    card_at,
    card_str,
    card_value,
    cards_str,
    find_layoffs,
    find_melds,
    laid_off,
    layoff_cards,
    layoff_result,
    meld_kind,
    meld_partners,
    order_meld,
    parse_action,
    parse_card,
    parse_cards,
    run_extensions,
    run_positions,
)
from gameshack.rules.rummy.melds import usable_pickups


def test_notation_round_trips_every_card() -> None:
    for c in range(52):
        assert parse_card(card_str(c)) == c
    assert parse_cards("AS 2H 10D JC QS KH") == tuple(
        parse_card(t) for t in ("AS", "2H", "10D", "JC", "QS", "KH")
    )
    assert parse_card("td") == parse_card("10D")


@pytest.mark.parametrize("junk", ["", "1S", "11H", "ZZ", "AX", "10", "A", "AS2"])
def test_junk_is_not_a_card(junk: str) -> None:
    with pytest.raises(MalformedAction):
        parse_card(junk)


@pytest.mark.parametrize(
    ("card", "value"),
    [("AS", 15), ("KH", 10), ("QD", 10), ("JC", 10), ("10S", 10), ("9H", 5), ("2C", 5)],
)
def test_card_values(card: str, value: int) -> None:
    assert card_value(parse_card(card)) == value


@pytest.mark.parametrize(
    ("cards", "kind"),
    [
        ("7H 7S 7D", "set"),
        ("7H 7S 7D 7C", "set"),
        ("7H 7S", None),  # too short
        ("7H 7S 8D", None),
        ("7H 8H 9H", "run"),
        ("9H 7H 8H", "run"),  # order does not matter
        ("7H 8H 10H", None),  # a gap
        ("7H 8H 9S", None),  # mixed suits
        ("AH 2H 3H", "run"),  # ace low
        ("QH KH AH", "run"),  # ace high
        ("JH QH KH AH", "run"),
        ("KH AH 2H", None),  # never round the corner
        ("QH KH AH 2H", None),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "run"),  # every spade, ace low
        ("AH AS AD", "set"),
        ("AH AS AD AC", "set"),
        ("7H 7H 7H", None),  # the same card thrice
        ("2C 3C", None),
    ],
)
def test_meld_validity(cards: str, kind: str | None) -> None:
    assert meld_kind(parse_cards(cards)) == kind


def test_runs_display_with_the_ace_where_it_plays() -> None:
    assert order_meld(parse_cards("AH KH QH")) == parse_cards("QH KH AH")
    assert order_meld(parse_cards("3H AH 2H")) == parse_cards("AH 2H 3H")
    assert str(parse_action("meld KH AH QH")) == "meld QH KH AH"


def test_find_melds_lists_every_meld_once() -> None:
    melds = {tuple(m) for m in find_melds(parse_cards("7H 7S 7D 7C 8H 9H QS KS AS"))}
    expected = {
        parse_cards(x)
        for x in (
            "7S 7H 7D",
            "7S 7H 7C",
            "7S 7D 7C",
            "7H 7D 7C",
            "7S 7H 7D 7C",
            "7H 8H 9H",
            "QS KS AS",
        )
    }
    assert melds == expected


def test_find_melds_does_not_list_the_full_suit_twice() -> None:
    runs = find_melds(parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"))
    assert len(runs) == len(set(frozenset(r) for r in runs))
    assert all(meld_kind(r) == "run" for r in runs)


def _run(mid: int, cards: str) -> TableMeld:
    parsed = order_meld(parse_cards(cards))
    return TableMeld(mid, "run", parsed, (0,) * len(parsed))


def _set(mid: int, cards: str) -> TableMeld:
    parsed = order_meld(parse_cards(cards))
    return TableMeld(mid, "set", parsed, (0,) * len(parsed))


def test_find_layoffs_both_ends_and_chains() -> None:
    table = [_run(0, "5H 6H 7H"), _set(1, "9S 9H 9D")]
    found = {(tuple(c), m) for c, m in find_layoffs(parse_cards("3H 4H 8H 9C KD"), table)}
    assert found == {
        (parse_cards("4H"), 0),
        (parse_cards("3H 4H"), 0),
        (parse_cards("8H"), 0),
        (parse_cards("4H 8H"), 0),
        (parse_cards("3H 4H 8H"), 0),
        (parse_cards("9C"), 1),
    }
    # every listed lay-off really is valid
    for cards, mid in find_layoffs(parse_cards("3H 4H 8H 9C KD"), table):
        assert layoff_result(table[mid], cards) is not None


@pytest.mark.parametrize(
    ("meld", "cards", "ok"),
    [
        ("QH KH AH", "JH", True),
        ("QH KH AH", "2H", False),  # ace high: no round the corner
        ("AH 2H 3H", "KH", False),  # ace low: no round the corner
        ("AH 2H 3H", "4H", True),
        ("2H 3H 4H", "AH", True),
        ("JH QH KH", "AH", True),
        ("5H 6H 7H", "9H", False),  # a gap
        ("5H 6H 7H", "8S", False),  # wrong suit
    ],
)
def test_run_layoff_ace_cases(meld: str, cards: str, ok: bool) -> None:
    result = layoff_result(_run(0, meld), parse_cards(cards))
    assert (result is not None) == ok


def test_set_takes_only_its_fourth_card() -> None:
    assert layoff_result(_set(0, "9S 9H 9D"), parse_cards("9C")) is not None
    assert layoff_result(_set(0, "9S 9H 9D 9C"), parse_cards("9C")) is None
    assert layoff_result(_set(0, "9S 9H 9D"), parse_cards("10C")) is None


def test_can_use_card_counts_the_cards_needed() -> None:
    table = [_run(0, "5H 6H 7H")]
    assert can_use_card(parse_card("8H"), (), table) == 1
    assert can_use_card(parse_card("9H"), parse_cards("8H"), table) == 2
    assert can_use_card(parse_card("9H"), (), table) == 0
    assert can_use_card(parse_card("KS"), parse_cards("KH KD"), []) == 3
    assert can_use_card(parse_card("AS"), parse_cards("KS QS"), []) == 3
    assert can_use_card(parse_card("AS"), parse_cards("KS 2S"), []) == 0


def test_usable_pickups_agree_with_can_use_card() -> None:
    table = [_run(0, "5H 6H 7H")]
    hand = parse_cards("2C 9C KD")
    pile = parse_cards("8H 3S 4S 9H 5S")
    got = usable_pickups(hand, pile, table)
    # 9H needs 8H, which is below it: not usable; 8H lays off; 3S is a run with 4S 5S.
    assert [card_str(pile[i]) for i in got] == ["3S", "8H"]


@pytest.mark.parametrize(
    "text",
    [
        *("deal", "draw", "take 7H", "meld 7H 8H 9H", "layoff 10H 3", "layoff 10H JH 3"),
        *("discard 8C", "undo", "commit", "next", "meld QH KH AH", "meld 7S 7H 7D 7C"),
    ],
)
def test_action_notation_round_trips(text: str) -> None:
    action = parse_action(text)
    assert str(action) == text
    assert parse_action(str(action)) == action


@pytest.mark.parametrize(
    "text",
    [
        *("", "fly", "take", "take 7H 8H", "layoff 7H", "layoff 7H x", "meld", "discard ZZ"),
        *("draw now", "layoff 7H ²", "commit 1", "take 1H", "meld 7H, 8H"),
    ],
)
def test_junk_actions_are_malformed(text: str) -> None:
    with pytest.raises(MalformedAction):
        parse_action(text)


@pytest.mark.parametrize(
    ("meld", "held"),
    [
        ("5H 6H 7H", "AH 2H 3H 4H 8H 9H 10H JH QH KH"),  # the ace reachable from both ends
        ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "AH"),  # the lone ace fits either end
        ("4H 5H 6H", "AH 2H 3H 7H KH"),
    ],
)
def test_find_layoffs_lists_exactly_the_valid_card_sets(meld: str, held: str) -> None:
    # Brute force over every subset of the held cards: find_layoffs must list each valid lay-off
    # once (by its cards) and nothing else — legal_actions is built on it, so a lay-off missing
    # here would be accepted by apply yet never offered to players, hints or bots.
    table = [_run(0, meld)]
    cards = parse_cards(held)
    valid = {
        frozenset(group)
        for size in range(1, len(cards) + 1)
        for group in combinations(cards, size)
        if layoff_result(table[0], group) is not None
    }
    listed = [frozenset(c) for c, _ in find_layoffs(cards, table)]
    assert len(listed) == len(set(listed))
    assert set(listed) == valid


# --------------------------------------------------------------------------- what bots plan by


def _table(cards: str, owner: int = 1) -> TableMeld:
    parsed = order_meld(parse_cards(cards))
    return TableMeld(0, str(meld_kind(parsed)), parsed, (owner,) * len(parsed))


@pytest.mark.parametrize(
    ("meld", "down", "up", "ones"),
    [
        ("5H 6H 7H", "4H 3H 2H AH", "8H 9H 10H JH QH KH AH", "4H 8H"),
        ("AH 2H 3H", "", "4H 5H 6H 7H 8H 9H 10H JH QH KH", "4H"),
        ("QH KH AH", "JH 10H 9H 8H 7H 6H 5H 4H 3H 2H", "", "JH"),
        # 2..K: the ace heads both ends, and lays off once.
        ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "AH", "AH", "AH"),
        ("7S 7H 7D", "", "", "7C"),
        ("7S 7H 7D 7C", "", "", ""),
    ],
)
def test_run_extensions_and_single_layoffs(meld: str, down: str, up: str, ones: str) -> None:
    table = _table(meld)
    assert run_extensions(table) == (parse_cards(down), parse_cards(up))
    assert layoff_cards(table) == parse_cards(ones)
    for c in layoff_cards(table):
        assert layoff_result(table, (c,)) is not None


def test_single_layoffs_are_exactly_the_valid_ones() -> None:
    for cards in ("5H 6H 7H", "AH 2H 3H", "QH KH AH", "9C 10C JC QC KC", "7S 7H 7D"):
        table = _table(cards)
        valid = [c for c in range(52) if c not in table.cards and layoff_result(table, (c,))]
        assert sorted(layoff_cards(table)) == valid, cards


def test_laid_off_cards_score_for_who_laid_them_off() -> None:
    grown = laid_off(_table("5H 6H 7H", owner=1), parse_cards("8H 4H"), 0)
    assert grown is not None
    assert cards_str(grown.cards) == "4H 5H 6H 7H 8H" and grown.owners == (0, 1, 1, 1, 0)
    assert laid_off(_table("5H 6H 7H"), parse_cards("9H"), 0) is None


@pytest.mark.parametrize(
    ("card", "pairs"),
    [
        ("7H", "7S 7D, 7S 7C, 7D 7C, 5H 6H, 6H 8H, 8H 9H"),
        ("AS", "AH AD, AH AC, AD AC, 2S 3S, QS KS"),
        ("KD", "KS KH, KS KC, KH KC, JD QD, QD AD"),
        ("2C", "2S 2H, 2S 2D, 2H 2D, AC 3C, 3C 4C"),
    ],
)
def test_meld_partners_are_the_pairs_completing_a_three_card_meld(card: str, pairs: str) -> None:
    c = parse_card(card)
    expected = tuple(parse_cards(p) for p in pairs.split(","))
    assert meld_partners(c) == expected
    others = [x for x in range(52) if x != c]
    completing = {(a, b) for a, b in combinations(others, 2) if meld_kind((c, a, b))}
    assert {tuple(sorted(p)) for p in meld_partners(c)} == completing


def test_run_positions_put_the_ace_at_both_ends() -> None:
    assert run_positions(parse_card("AH")) == (1, 14)
    assert run_positions(parse_card("KH")) == (13,)
    assert card_at(1, 1) == card_at(1, 14) == parse_card("AH")
    assert all(card_at(c // 13, p) == c for c in range(52) for p in run_positions(c))

"""Properties of the five Abande and Attangle games on random positions (hypothesis).

Random games are played from the start; at the reached position every legal turn must
survive notation out and back in, and along the way the invariants of each game hold.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import new_game
from rules.abande import Abande
from rules.attangle import Attangle, Capture
from rules.stacking import Place

NAMES = ["abande", "abande-square", "attangle", "attangle-square", "attangle-2008"]


def random_game(name: str, choices: list[int]):
    """Play one turn per choice, stopping short of the end so that turns remain to test;
    odd choices prefer moves and captures over placements."""
    b = new_game(name)
    start = b.material()
    for c in choices:
        turns = b.legal_turns()
        if not turns:
            break
        active = [t for t in turns if not isinstance(t, Place)]
        pool = active if c % 2 and active else turns
        before = b.key()
        b.push(pool[(c // 2) % len(pool)])
        check_invariants(b, start)
        b.pop()
        assert b.key() == before, "pop restores the position"
        b.push(pool[(c // 2) % len(pool)])
        if b.is_game_over():
            b.pop()
            break
    return b


def check_invariants(b, start) -> None:
    assert b.material() == start
    assert all(len(s) <= b.max_height for s in b.stacks)
    assert all(b.stack_fits(s, s) and b.stack_fits(s, "?" * len(s)) for s in b.stacks)
    if isinstance(b, Abande):
        assert b.chain_intact([bool(s) for s in b.stacks])
    elif b.returns_top:
        assert b["d4"] == ""
    else:
        assert all(len(s) in (0, 1, 3, 5) for s in b.stacks)
        assert all(abs(s.count("w") - s.count("b")) == 1 for s in b.stacks if s)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=15, deadline=None)
@given(choices=st.lists(st.integers(min_value=0, max_value=10_000), max_size=90))
def test_notation_round_trip_on_random_positions(name, choices):
    b = random_game(name, choices)
    assert b.legal_turns()
    for turn in b.legal_turns():
        text = b.turn_notation(turn)
        assert b.parse_turn(text) == turn
        assert b.parse_turn(text.upper()) == turn
        if isinstance(turn, Capture):
            first, _, target = text.partition("-")
            a, c = first.split(",")
            assert b.parse_turn(f"{c},{a}-{target}") == turn
            assert a < c, "origins are written in alphabetical order"


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=10, deadline=None)
@given(choices=st.lists(st.integers(min_value=0, max_value=10_000), min_size=20, max_size=60))
def test_illegal_turns_are_refused_with_a_reason(name, choices):
    """Every well-formed turn that is not legal is refused, never accepted or crashing."""
    b = random_game(name, choices)
    legal = {b.turn_notation(t) for t in b.legal_turns()}
    names = b.geometry.names
    candidates = list(names)
    if isinstance(b, Attangle):
        occupied = [n for n in names if b[n]]
        candidates += [f"{p},{q}-{t}" for p in occupied for q in occupied for t in occupied if p < q][:400]
    else:
        candidates += ["pass"] + [f"{p}-{q}" for p in names for q in names if b[p] and b[q]]
    for text in candidates:
        if text in legal:
            continue
        try:
            b.parse_turn(text)
        except ValueError as e:
            assert str(e)
        else:
            pytest.fail(f"{text} was accepted but is not among the legal turns")

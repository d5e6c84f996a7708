"""Properties of the five Abande and Attangle games on random positions (hypothesis).

Random games are played from the start; at the reached position every legal turn must
survive notation out and back in, and along the way the invariants of each game hold.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import new_game
from rules.abande import Abande, Step
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
    assert all(b.can_stand(s) for s in b.stacks if s)
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


# --- an independent brute-force oracle -------------------------------------------------
# AbstractPlay (which implements Abande and Attangle 2008) is not published on npm, so the
# move generators are checked against this deliberately naive re-derivation from the rule
# texts: every triple / pair of points is tried, straight lines come from lattice
# coordinates instead of the geometry's rays, and the chain is a flood fill of its own.

def lattice_line(b, origin: int, target: int) -> list[int] | None:
    """The points strictly between origin and target if they lie on one of the game's
    straight lines (target a whole number of steps away along one direction), else None."""
    (x0, y0), (x1, y1) = b.geometry.lattice[origin], b.geometry.lattice[target]
    at = dict(zip(b.geometry.lattice, range(len(b.geometry))))
    for dx, dy in b.geometry.directions:
        for k in range(1, 20):
            if (x0 + k * dx, y0 + k * dy) == (x1, y1):
                return [at[(x0 + m * dx, y0 + m * dy)] for m in range(1, k)]
    return None


def brute_captures(b) -> set[tuple[tuple[int, int], int]]:
    me, n = b.turn, len(b.stacks)
    if b.returns_top:  # 2008: top owns, units of 1 or 2, at most 3 after the top goes back
        owns = lambda s: s[-1]  # noqa: E731
        fits = lambda t, u, v: len(t) + len(u) + len(v) - 1 <= 3  # noqa: E731
        units = (1, 2)
    else:  # booklet: majority owns, units of 1 or 3, at most 5, majority of exactly one
        owns = lambda s: "w" if s.count("w") > s.count("b") else "b"  # noqa: E731
        fits = lambda t, u, v: (len(t + u + v) <= 5  # noqa: E731
                                and (t + u + v).count(me) * 2 - len(t + u + v) == 1)
        units = (1, 3)
    mine = [o for o in range(n) if b.stacks[o] and owns(b.stacks[o]) == me and len(b.stacks[o]) in units]
    found = set()
    for t in range(n):
        victim = b.stacks[t]
        if not victim or owns(victim) == me or len(victim) >= b.max_height:
            continue
        reach = []
        for o in mine:
            between = lattice_line(b, o, t)
            if between is not None and not any(b.stacks[j] for j in between):
                reach.append(o)
        found |= {((a, c), t) for a in reach for c in reach if a < c and fits(victim, b.stacks[a], b.stacks[c])}
    return found


def flood_connected(b, stacks: list[str]) -> bool:
    cells = {b.geometry.lattice[i] for i, s in enumerate(stacks) if s}
    if not cells:
        return True
    seen, todo = set(), [next(iter(cells))]
    while todo:
        x, y = todo.pop()
        if (x, y) in seen:
            continue
        seen.add((x, y))
        todo += [(x + dx, y + dy) for dx, dy in b.geometry.directions if (x + dx, y + dy) in cells]
    return seen == cells


def brute_steps(b) -> set[tuple[int, int]]:
    me = b.turn
    if b.hands["b"] > 16:
        return set()
    found = set()
    for o, s in enumerate(b.stacks):
        for t, v in enumerate(b.stacks):
            if s and v and s[-1] == me and v[-1] != me and len(s) + len(v) <= 3 \
                    and lattice_line(b, o, t) == []:
                after = list(b.stacks)
                after[t], after[o] = v + s, ""
                if flood_connected(b, after):
                    found.add((o, t))
    return found


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=12, deadline=None)
@given(choices=st.lists(st.integers(min_value=0, max_value=10_000), min_size=10, max_size=70))
def test_move_generator_agrees_with_brute_force(name, choices):
    b = random_game(name, choices)
    if isinstance(b, Attangle):
        engine = {(t.origins, t.target) for t in b.legal_turns() if isinstance(t, Capture)}
        assert engine == brute_captures(b)
    else:
        engine = {(t.origin, t.target) for t in b.legal_turns() if isinstance(t, Step)}
        assert engine == brute_steps(b)
    placements = {t.point for t in b.legal_turns() if isinstance(t, Place)}
    empty = {i for i, s in enumerate(b.stacks) if not s}
    if b.hands[b.turn] == 0:
        assert placements == set()
    elif isinstance(b, Attangle):
        assert placements == empty - ({b.geometry.index("d4")} if b.returns_top else set())
    else:
        assert placements == {i for i in empty if any(lattice_line(b, i, j) == [] for j in range(len(b.stacks))
                                                      if b.stacks[j])}


@pytest.mark.parametrize("name, record, plies", [
    ("abande", "abande.txt", 40), ("attangle", "attangle.txt", 30), ("attangle-2008", None, 30),
])
def test_brute_force_agrees_on_every_position_two_turns_from_a_middle_game(shared, name, record, plies):
    """Middle games have many captures on the board: compare the move generator with the
    brute force at every position reached in up to two more turns.  The start is the
    rulebook game, or a fixed random game where there is none (2008 edition)."""
    if record is None:
        rng = random.Random(7)
        b = random_game(name, [rng.randrange(10_000) | 1 for _ in range(plies)])
    else:
        b = new_game(name)
        for text in b.read_record((shared / "rulebook-games" / record).read_text()).turns[:plies]:
            b.push_notation(text)
    checked = captures = 0

    def visit(depth: int) -> None:
        nonlocal checked, captures
        turns = b.legal_turns()
        captures += sum(isinstance(t, (Capture, Step)) for t in turns)
        if isinstance(b, Attangle):
            assert {(t.origins, t.target) for t in turns if isinstance(t, Capture)} == brute_captures(b)
        else:
            assert {(t.origin, t.target) for t in turns if isinstance(t, Step)} == brute_steps(b)
        checked += 1
        if depth:
            for t in turns:
                b.push(t)
                visit(depth - 1)
                b.pop()

    visit(2)
    assert checked > 30 and captures > 0

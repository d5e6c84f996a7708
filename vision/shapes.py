"""The stacks a game can build, for reading a stack as a whole rather than disc by disc.

A game's rules build only some stacks (:meth:`rules.base.Board.possible_stacks`): Attangle's
are 1, 3 or 5 high with a majority of one, a draughts king is two discs of one colour, an
Abande stack never has two discs of one colour on top.  The reader weighs only those: a
height the game cannot build is never read, and the colours of a stack's discs are read
together, so that a disc the camera sees badly (or not at all) is what the others and the
rules say it must be.

>>> StackShapes(("w", "b", "wbb", "bww"), 4).fold[1:].round(2).tolist()  # no stacks of 2 or 4
[[0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0]]
>>> shapes = StackShapes(("w", "b", "ww", "bb"), 2)  # men and kings
>>> texts, shares = shapes.best(np.array([2, 2, 1]), np.array([[0.4, 0.9], [0.5, 0.9], [0.2, 0.5]]),
...                             np.array([[True, True], [False, True], [True, False]]))
>>> texts, shares.round(3).tolist()  # a king's lower disc read dark, or hidden; a man
(['ww', 'ww', 'b'], [0.36, 0.9, 0.8])

A game may accept stacks in orders that play seldom makes (:data:`UNUSUAL_NATS`):

>>> threes = StackShapes(("bbw", "bwb", "bww", "wbb", "wbw", "wwb"), 3, usual=("bww", "wbb"))
>>> white = np.array([[0.1, 0.4, 0.9], [0.04, 0.96, 0.04]])  # a middle disc unsure; one surely white
>>> threes.best(np.array([3, 3]), white, np.ones((2, 3), bool))[0]  # the usual stack; the stack as seen
['bww', 'bwb']

Where the game says how many white discs the board holds, the stacks read hold that many if
they can without being much less likely (:data:`RECOUNT_NATS`):

>>> twos = StackShapes(("w", "b", "ww", "wb", "bw", "bb"), 2)
>>> white, seen = np.array([[0.9, 0.45], [0.95, 0.5]]), np.array([[True, True], [True, False]])
>>> [twos.best(np.array([2, 1]), white, seen, whites)[0] for whites in (None, 3, 0)]  # 0: far less likely
[['wb', 'w'], ['ww', 'w'], ['wb', 'w']]
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from vision.adding_up import likeliest_adding_up

SURE_LAYER = 1e-6
"""Layer probabilities are kept this far from 0 and 1, so that no single disc rules out a stack."""
UNUSUAL_NATS = float(np.log(10.0))
"""How much less likely (nats) a stack is taken to be than the game's usual ones
(:meth:`rules.base.Board.usual_stacks`) where the rules accept it only as an order of its
pieces that play does not make (Attangle: a capture's target out of the bottom, a 3-stack
split), as a player restacking by hand might leave it: one in ten.  Where a layer's colour is
unsure the usual stack decides; a stack whose discs read 0.91 sure each or more is still read
as it is, as sure as its share of the probability with the prior.  On 222 held-out pictures of
Attangle and Attangle square (seen steeply, from every elevation, at 1920x1080 and
POV-Ray's) the points read wrong went from 52 to 45 (at one in a hundred: 44), sure and wrong
2 both times.  Our renderer stacks as the booklet says, so more would read its pictures
better still; one in ten is for the players who do not."""


RECOUNT_NATS = float(np.log(50.0))
"""How much less likely (nats) the likeliest stacks holding the white discs a game keeps may be
than those read disc by disc, for :meth:`StackShapes.best` to read them instead: as for the
heights (:data:`vision.heights.ADD_UP_NATS`), a position that has lost a disc is far rarer than
a disc read the wrong colour.  Accasta's pictures read with no error went from 0.86 to 0.89 on
the benchmark (seed 5701, 100 scenes; points wrong 24 -> 23) and from 0.62 to 0.65 on 85
held-out stills at 640x480 and of tall stacks; its points read wrong from 48 to 44 on 112 more
(seen steeply, from every elevation, at 1920x1080 and POV-Ray's), as many sure and wrong.  Where
the heights add up only because one misread makes up for another, a stack read right may be
recoloured instead (two points of the benchmark's, at 0.24 and less); recounting only where
the heights added up as read lost more than that (0.85)."""

SHORTER_NATS = 1.0
"""How much likelier (nats) a stack read one disc shorter must be than as read for
:meth:`StackShapes.shorter` to say so: the two readings of its top disc are of the same
picture's neighbouring pixels, and fail together more often than two readings would.  On 300
stills of the six stacking games (whole range and 58-75 degrees, seeds 9452 and 9464) the rule
read 4 points right that were wrong and, at 0.5 nats, 1 wrong that was right (at 0, 2); at 1,
none (:func:`vision.reader._one_shorter` for pictures held out)."""


def _layer_logs(white: np.ndarray, seen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The log-probabilities of each layer's being white and black (``white``: its
    probability of being white), kept :data:`SURE_LAYER` from certain, 0 where it was not
    ``seen``."""
    return np.log(np.clip(white, SURE_LAYER, 1)) * seen, np.log(np.clip(1 - white, SURE_LAYER, 1)) * seen


class StackShapes:
    """The stacks of one game (strings bottom to top, ``w``/``b``) grouped by height."""

    def __init__(self, stacks: Iterable[str], max_height: int, usual: Iterable[str] | None = None) -> None:
        stacks = ("",) + tuple(stacks)
        self.by_height = [np.array([[c == "w" for c in s] for s in stacks if len(s) == h], bool)
                          .reshape(sum(len(s) == h for s in stacks), h) for h in range(max_height + 1)]
        """Per height, the game's stacks of that height (stacks x layers, True for white)."""
        common = set(stacks if usual is None else ("", *usual))
        self.prior = [np.array([0.0 if s in common else -UNUSUAL_NATS for s in stacks if len(s) == h])
                      for h in range(max_height + 1)]
        """Per height, each stack's log-prior: 0 for the ``usual`` ones (default: every one),
        :data:`UNUSUAL_NATS` less for the others."""
        built = [h for h, s in enumerate(self.by_height) if len(s)]
        self.fold = np.zeros((max_height + 1, max_height + 1))
        """Moves a height probability (0..max_height) off the heights the game never builds,
        half to the nearest built one below and half to the one above (all to the one there
        is): a height read wrong is mostly a neighbour's (``p @ fold``)."""
        for h in range(max_height + 1):
            near = [max(b for b in built if b <= h), min((b for b in built if b >= h), default=None)]
            for b in near:
                self.fold[h, near[0] if b is None else b] += 0.5

    def best(self, heights: np.ndarray, white: np.ndarray, seen: np.ndarray, whites: int | None = None
             ) -> tuple[list[str], np.ndarray]:
        """For stacks of ``heights``: the likeliest of the game's stacks of that height, given
        each disc's probability of being white (``white``, stacks x layers, bottom first; only
        the first ``height`` count) where its colour was read (``seen``, the same shape), and
        the share of the probability that reading holds.

        Discs not seen are written ``?`` unless every stack that fits the seen ones agrees
        on them.  The share is that of all stacks written the same way, but never more than
        the product of the seen discs' probabilities of the colours written (which it is when
        every stack is possible): the rules may say what a disc is, but the height they
        assume may be wrong, so they make no reading surer than its discs.

        ``whites``: how many white discs the stacks hold, when the game says (Accasta never
        adds or removes one, and its heights were read adding up): where every disc was seen
        and the stacks read do not hold that many, the likeliest that do are read instead
        (:meth:`_recount`), unless they are more than :data:`RECOUNT_NATS` less likely."""
        texts = [""] * len(heights)
        shares = np.ones(len(heights))
        log_w, log_b = _layer_logs(white, seen)
        options: list[tuple[int, int, np.ndarray]] = []  # per stack: point, height, log-likelihood of each of its stacks
        for h in np.unique(heights[heights > 0]):
            at = np.flatnonzero(heights == h)
            shapes, read = self.by_height[h], seen[at, :h]
            log_p = self._log_likelihoods(h, log_w[at, :h], log_b[at, :h])
            chosen = np.argmax(log_p, axis=1)
            best = shapes[chosen]  # points x layers
            fits = ((shapes[None] == best[:, None]) | ~read[:, None]).all(axis=2)  # written like the best
            open_ = ((shapes[None] != best[:, None]) & fits[..., None]).any(axis=1)
            weight = np.exp(log_p - log_p.max(axis=1, keepdims=True))
            discs = np.exp(log_p.max(axis=1) - self.prior[h][chosen])  # the seen discs' probability, no prior
            shares[at] = np.minimum((weight * fits).sum(axis=1) / weight.sum(axis=1), discs)
            for j, b, o in zip(at, best, open_):
                texts[j] = "".join("?" if oo else ("w" if bb else "b") for bb, oo in zip(b, o))
            options += [(j, h, row) for j, row in zip(at, log_p)]
        if whites is not None and not any("?" in t for t in texts) and sum(t.count("w") for t in texts) != whites:
            self._recount(options, whites, texts, shares)
        return texts, shares

    def _log_likelihoods(self, h: int, log_w: np.ndarray, log_b: np.ndarray) -> np.ndarray:
        """The log-likelihood of every stack of height ``h`` at every point (points x stacks), its
        log-prior in, given the log-probabilities of each layer's being white and black
        (``log_w``, ``log_b``: points x ``h``, 0 for a layer not seen)."""
        shapes = self.by_height[h]
        return log_w @ shapes.T + log_b @ ~shapes.T + self.prior[h]

    def shorter(self, heights: np.ndarray, white: np.ndarray, seen: np.ndarray, odds: np.ndarray) -> np.ndarray:
        """Which stacks of ``heights`` are likelier one disc shorter, for the colours their
        discs were read (``white``, ``seen``: as for :meth:`best`) and ``odds``, the log-odds
        (nats) of each stack's height one less against the height read.

        A stack read a disc too tall has its top disc read twice: on its side, where the
        layer under the top was looked for, and again on its top face, where the top layer
        was (seen steeply, the top face a layer up lies on the real one).  So one disc less
        is weighed with both readings as its top disc's: where the game cannot build two
        discs of that colour on top (Abande), a single black disc read as two shows black
        twice, which no stack of two fits and one black disc fits well.

        >>> abande = StackShapes(("w", "b", "wb", "bw"), 2)
        >>> white = np.array([[0.05, 0.02], [0.05, 0.98]])  # black read twice; black under white
        >>> abande.shorter(np.array([2, 2]), white, np.ones((2, 2), bool), np.array([-1.0, -1.0])).tolist()
        [True, False]
        """
        out = np.zeros(len(heights), bool)
        log_w, log_b = _layer_logs(white, seen)
        for h in np.unique(heights[heights > 1]):
            if not len(self.by_height[h - 1]):
                continue
            at = np.flatnonzero(heights == h)
            tall = self._log_likelihoods(h, log_w[at, :h], log_b[at, :h]).max(axis=1)
            top_w, top_b = log_w[at, :h - 1].copy(), log_b[at, :h - 1].copy()
            top_w[:, -1] += log_w[at, h - 1]
            top_b[:, -1] += log_b[at, h - 1]
            short = self._log_likelihoods(h - 1, top_w, top_b).max(axis=1)
            out[at] = odds[at] + short - tall > SHORTER_NATS
        return out

    def _recount(self, options: list[tuple[int, int, np.ndarray]], whites: int, texts: list[str],
                 shares: np.ndarray) -> None:
        """Reads the likeliest stacks among ``options`` (per stack: its point, its height, and
        the log-likelihood of each of the game's stacks of that height, their log-priors in)
        that hold ``whites`` white discs into ``texts`` and ``shares``, if they are at most
        :data:`RECOUNT_NATS` less likely than those read; a stack changed so has the share its
        own discs give it."""
        fit = likeliest_adding_up([(self.by_height[h].sum(axis=1), log_p) for _, h, log_p in options], whites)
        if fit is None or not sum(float(log_p.max()) for _, _, log_p in options) - fit[1] <= RECOUNT_NATS:
            return
        for (j, h, log_p), c in zip(options, fit[0]):
            if log_p[c] < log_p.max():
                texts[j] = "".join("w" if w else "b" for w in self.by_height[h][c])
                weight = np.exp(log_p - log_p.max())
                shares[j] = min(weight[c] / weight.sum(), float(np.exp(log_p[c] - self.prior[h][c])))

    def deduce_unseen(self, texts: list[str], white: int) -> list[str]:
        """``texts`` (the stacks read, ``?`` for discs not seen) with the unseen discs the
        board's count of white discs decides (``white``, in a game that never adds or removes
        one): a ``?`` becomes a colour where every way of reading the ``?`` discs as the game's
        stacks that adds up to ``white`` agrees on it.  Nothing changes when no way does (a
        disc read wrong, or the heights do not add up).

        >>> shapes = StackShapes(("w", "b", "ww", "wb", "bw", "bb"), 2)
        >>> shapes.deduce_unseen(["?w", "w", "?b"], 2)  # both unseen discs are black
        ['bw', 'w', 'bb']
        >>> shapes.deduce_unseen(["?w", "w", "?b"], 3)  # one of them is white: which is open
        ['?w', 'w', '?b']
        """
        open_ = [i for i, t in enumerate(texts) if "?" in t]
        if not open_:
            return texts
        need = white - sum(t.count("w") for t in texts)
        # Per stack with unseen discs, the game's stacks it may be and their unseen white discs.
        options = []
        for i in open_:
            t = texts[i]
            shapes = self.by_height[len(t)]
            fits = np.ones(len(shapes), bool)
            for k, c in enumerate(t):
                if c != "?":
                    fits &= shapes[:, k] == (c == "w")
            options.append([(s, int(s.sum()) - t.count("w")) for s in shapes[fits]])
        # The unseen white discs the stacks before (after) each one can hold together.
        before = [{0}]
        for opts in options:
            before.append({a + w for a in before[-1] for _, w in opts})
        after = [{0}]
        for opts in reversed(options):
            after.append({a + w for a in after[-1] for _, w in opts})
        after.reverse()
        out = list(texts)
        for j, (i, opts) in enumerate(zip(open_, options)):
            possible = [s for s, w in opts if any(need - w - a in after[j + 1] for a in before[j])]
            if not possible:
                return texts
            agree = np.all([p == possible[0] for p in possible], axis=0)
            out[i] = "".join(c if c != "?" or not same else ("w" if w else "b")
                             for c, same, w in zip(texts[i], agree, possible[0]))
        return out


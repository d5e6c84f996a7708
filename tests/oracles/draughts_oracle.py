"""Answer questions about international draughts with a third-party library (a test oracle).

Run with the Python of one oracle's virtualenv (see tools/oracles.sh)::

    .venv-oracles/py-draughts/bin/python tests/oracles/draughts_oracle.py py-draughts

It reads one JSON request per line on stdin and writes one JSON answer per line:

* ``{"op": "moves", "fens": [FEN, ...]}`` -> ``{"moves": [[[start, end, [captured...]], ...], ...]}``
  (squares 1-50, captured squares sorted; one list per FEN)
* ``{"op": "replay", "pdn": TEXT}`` -> ``{"fen": FEN, "plies": N}`` after the first game's moves
* ``{"op": "write", "moves": [MOVE, ...]}`` -> ``{"pdn": TEXT}``: the library plays the moves from
  the start position and writes the game as PDN
* ``{"op": "results", "fen": FEN, "moves": [MOVE, ...]}`` -> ``{"results": [R0, R1, ...]}``: the
  game result (``1-0``, ``0-1``, ``1/2-1/2`` or ``-`` while it goes on) at the set-up and after
  every move; captures given as whole paths (py-draughts only)
* ``{"op": "perft", "depth": N}`` -> ``{"nodes": LEAVES, "seconds": CPU_S}`` from the start position,
  through the library's public legal-moves/push/pop API (py-draughts only; for benchmarks/rules.py)
* errors -> ``{"error": MESSAGE}``

Both libraries install as the import name ``draughts``; this file never runs in the product.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import traceback


def py_draughts():
    import draughts

    def moves(fen):
        board = draughts.Board.from_fen(fen)
        return [[m.square_list[0] + 1, m.square_list[-1] + 1, sorted(c + 1 for c in m.captured_list)]
                for m in board.legal_moves]

    def replay(pdn):
        board = draughts.Board.from_pdn(pdn)
        return {"fen": board.fen, "plies": len(board._moves_stack)}

    def write(move_texts):
        board = draughts.Board()
        for text in move_texts:
            board.push_uci(text)
        return {"pdn": board.pdn}

    def results(fen, move_texts):
        board = draughts.Board.from_fen(fen)
        out = [board.result]
        for text in move_texts:
            board.push_uci(text)
            out.append(board.result)
        return {"results": out}

    def perft(depth):
        board = draughts.Board()

        def count(d):
            legal = board.legal_moves
            if d == 1:
                return len(legal)
            total = 0
            for move in legal:
                board.push(move)
                total += count(d - 1)
                board.pop()
            return total

        start = time.process_time()
        nodes = count(depth)
        return {"nodes": nodes, "seconds": time.process_time() - start}

    return moves, replay, write, results, perft


def pydraughts():
    from draughts import Board, Move
    from draughts.PDN import PDNReader, PDNWriter

    def moves(fen):
        out = []
        for m in Board("standard", fen=fen).legal_moves():
            steps = m.board_move
            out.append([steps[0][0], steps[-1][1], sorted(m.captures or [])])
        return out

    def replay(pdn):
        game = PDNReader(pdn_text=pdn).games[0]
        board = Board("standard", fen=game.tags.get("FEN", "startpos"))
        for text in game.moves:
            board.push(Move(board, pdn_move=text))
        return {"fen": board.fen, "plies": len(game.moves)}

    def write(move_texts):
        board = Board("standard")
        for text in move_texts:
            board.push(Move(board, pdn_move=text))
        fd, path = tempfile.mkstemp(suffix=".pdn")
        os.close(fd)
        try:
            PDNWriter(path, board=board)
            with open(path, encoding="utf8") as f:
                return {"pdn": f.read()}
        finally:
            os.unlink(path)

    def only_py_draughts(*args):
        raise NotImplementedError("only asked of py-draughts")

    return moves, replay, write, only_py_draughts, only_py_draughts


def main() -> int:
    moves, replay, write, results, perft = {"py-draughts": py_draughts, "pydraughts": pydraughts}[sys.argv[1]]()
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["op"] == "moves":
                answer = {"moves": [moves(fen) for fen in request["fens"]]}
            elif request["op"] == "replay":
                answer = replay(request["pdn"])
            elif request["op"] == "write":
                answer = write(request["moves"])
            elif request["op"] == "results":
                answer = results(request["fen"], request["moves"])
            elif request["op"] == "perft":
                answer = perft(request["depth"])
            else:
                answer = {"error": f"unknown op {request['op']!r}"}
        except Exception as e:  # report to the test, keep serving
            answer = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

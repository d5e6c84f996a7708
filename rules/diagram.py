"""Plain-text pictures of a board, as White sees it (White's edge at the bottom)."""

from __future__ import annotations

from rules.geometry import Geometry


def diagram(geometry: Geometry, stacks: list[str] | dict[str, str]) -> str:
    """Draw every point's stack (``.`` for empty) on its lattice position.

    >>> from rules.geometry import hex_geometry
    >>> print(diagram(hex_geometry(), {"d4": "wb"}).splitlines()[3].strip())
    d  .     .     .     wb    .     .     .
    """
    if isinstance(stacks, dict):
        by_name = stacks
    else:
        by_name = dict(zip(geometry.names, stacks))
    width = max([2, *(len(s) for s in by_name.values())]) + 1
    xs = sorted({x for x, _ in geometry.lattice})
    ys = sorted({y for _, y in geometry.lattice}, reverse=True)
    x_step = min(b - a for a, b in zip(xs, xs[1:])) if len(xs) > 1 else 1
    col = {x: (x - xs[0]) // x_step for x in xs}
    lines = []
    for y in ys:
        row = [(col[x], n) for n, (x, yy) in zip(geometry.names, geometry.lattice) if yy == y]
        cells = [" " * width] * (max(col.values()) + 1)
        for c, n in row:
            cells[c] = (by_name.get(n) or ".").ljust(width)
        label = row[0][1][0] if geometry.kind == "hex" else row[0][1][1:]
        lines.append(f"{label:>2}  " + "".join(cells).rstrip())
    if geometry.kind == "square":
        files = [" " * width] * (max(col.values()) + 1)
        for n, (x, _) in zip(geometry.names, geometry.lattice):
            files[col[x]] = n[0].ljust(width)
        lines.append("    " + "".join(files).rstrip())
    return "\n".join(lines)

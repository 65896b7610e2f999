"""A person's relations as a small drawing: them in the middle, the people they are related to on a circle
around them, one labelled arrow per relation (subject -> object). Coordinates for an inline SVG; no script."""

from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH, HEIGHT = 360, 280  # the SVG's viewBox
RADIUS = 95  # the circle the others sit on


@dataclass(frozen=True)
class Node:
    name: str
    id: int | None  # person id to link to (None: not in the memory any more)
    x: float
    y: float
    label_y: float  # the name goes above a node in the top half, below one in the bottom half
    centre: bool


@dataclass(frozen=True)
class Edge:
    relation: str
    x1: float
    y1: float
    x2: float
    y2: float
    lx: float  # where the label goes: beside the middle of the arrow
    ly: float
    anchor: str  # SVG text-anchor of the label: start | middle | end
    current: bool  # False: the relation no longer holds


NODE_R = 20  # a node's radius
LABEL_GAP = 8  # an edge's label is this far beside it (px), one more step per other relation between the two


def layout(name: str, relations: list[dict], ids: dict[str, int]) -> tuple[list[Node], list[Edge]]:
    """Nodes and edges for `name`'s relations ({subject, relation, object, valid_to})."""
    others = list(dict.fromkeys(r["object"] if r["subject"] == name else r["subject"] for r in relations))
    cx, cy = WIDTH / 2, HEIGHT / 2
    at = {name: (cx, cy)}
    for i, other in enumerate(others):
        angle = -math.pi / 2 + 2 * math.pi * i / max(1, len(others))
        at[other] = (cx + RADIUS * 1.35 * math.cos(angle), cy + RADIUS * math.sin(angle))
    nodes = [Node(n, ids.get(n), x, y, y - 28 if y < cy - 1 else y + 34, n == name) for n, (x, y) in at.items()]
    edges, seen = [], {}
    for r in relations:
        pair = frozenset((r["subject"], r["object"]))
        seen[pair] = seen.get(pair, 0) + 1
        edges.append(_edge(r, at[r["subject"]], at[r["object"]], seen[pair], r["subject"] == name))
    return nodes, edges


def _edge(r: dict, a: tuple[float, float], b: tuple[float, float], nth: int, from_centre: bool) -> Edge:
    (x1, y1), (x2, y2) = a, b
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    trim = (NODE_R + 2) / length  # the arrow stops at the nodes' edges
    nx, ny = -dy / length, dx / length  # the normal: labels go beside the line, not on it
    if nx < 0 or (nx == 0 and ny < 0):
        nx, ny = -nx, -ny
    gap = LABEL_GAP + 13 * (nth - 1)
    t = 0.6 if from_centre else 0.4  # nearer the other person than the centre, whose name is there
    lx, ly = x1 + dx * t + nx * gap, y1 + dy * t + ny * gap + 4
    anchor = "start" if nx > 0.3 else "middle"
    return Edge(
        r["relation"],
        x1 + dx * trim,
        y1 + dy * trim,
        x2 - dx * trim,
        y2 - dy * trim,
        lx,
        ly,
        anchor,
        r["valid_to"] is None,
    )

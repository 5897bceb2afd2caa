"""Draw the learned agent's learning curve as an SVG (standard library only).

Reads the ``log.jsonl`` files that ``seep train-agent`` writes in its ``--dir`` (one line per
evaluation: training minutes, points per deal against the heuristic bot, standard error) and
draws points per deal by training minutes, with a band of two standard errors and the zero
line (the heuristic's level):

    python tools/learning_curve.py docs/images/learning-curve.svg --skip 1 \\
        runs/oracle/log.jsonl="oracle baseline" runs/agent/log.jsonl="plain returns"
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

W, H = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 20, 36, 48


COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def draw(series: list[tuple[str, list[dict[str, float]]]], title: str) -> str:
    """The SVG text of the curves: ``(label, log entries)`` each."""
    every = [e for _, entries in series for e in entries]
    x_max = max(max(e["minutes"] for e in every), 1e-9)
    lo = min(min(e["vs_heuristic"] - 2 * e.get("se", 0.0) for e in every), 0.0)
    hi = max(max(e["vs_heuristic"] + 2 * e.get("se", 0.0) for e in every), 0.0)
    # Round the axis to tens so the grid lines fall on whole numbers.
    lo = 10 * math.floor(lo / 10)
    hi = 10 * math.ceil(hi / 10)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + pw * x / x_max

    def py(y: float) -> float:
        return TOP + ph * (hi - y) / (hi - lo)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
    ]
    y = lo
    while y <= hi:
        out.append(
            f'<line x1="{LEFT}" y1="{py(y):.1f}" x2="{W - RIGHT}" y2="{py(y):.1f}" '
            f'stroke="{"#444" if y == 0 else "#ddd"}"/>'
        )
        out.append(f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:+d}</text>')
        y += 10
    x_step = max(1, round(x_max / 8))
    x = 0
    while x <= x_max + 1e-9:
        out.append(f'<text x="{px(x):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{x}</text>')
        x += x_step
    out.append(
        f'<text x="{LEFT + pw / 2}" y="{H - 10}" text-anchor="middle">'
        "training minutes (one actor process and one learner, 2-core VM, shared)</text>"
    )
    out.append(
        f'<text x="16" y="{TOP + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {TOP + ph / 2})">points per deal vs heuristic</text>'
    )
    for k, (label, entries) in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        pts = [(e["minutes"], e["vs_heuristic"], e.get("se", 0.0)) for e in entries]
        band = [f"{px(a):.1f},{py(b + 2 * s):.1f}" for a, b, s in pts]
        band += [f"{px(a):.1f},{py(b - 2 * s):.1f}" for a, b, s in reversed(pts)]
        out.append(f'<polygon points="{" ".join(band)}" fill="{colour}" fill-opacity="0.12"/>')
        line = " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b, _ in pts)
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for a, b, _ in pts:
            out.append(f'<circle cx="{px(a):.1f}" cy="{py(b):.1f}" r="3" fill="{colour}"/>')
        # The legend in the lower right, where the curves (above the untrained start) seldom go.
        ly = H - BOTTOM - 8 - 16 * (len(series) - 1 - k)
        lx = W - RIGHT - 250
        out.append(
            f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 20}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        out.append(f'<text x="{lx + 26}" y="{ly}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("logs", nargs="+", help="LOG=LABEL: a run's log.jsonl and its legend")
    ap.add_argument(
        "--skip", type=int, default=0, help="leave out the first evaluations (the untrained net)"
    )
    ap.add_argument(
        "--title",
        default="learned vs heuristic during training (200 duplicate deals, ±2 standard errors)",
    )
    args = ap.parse_args()
    series = []
    for item in args.logs:
        path, _, label = item.partition("=")
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        entries = [json.loads(line) for line in lines if line.strip()][args.skip :]
        series.append((label or path, entries))
    args.out.write_text(draw(series, args.title), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

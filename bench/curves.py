#!/usr/bin/env python3
"""Whole-process time of each what-if family against the dataset's size, drawn log-log as an SVG (issue 48).

    python3 bench/curves.py build/accel-sim docs/performance-curves.svg

Each point is the best of a few runs of `accel-sim ...` (fork, exec, wait), 64 ranks; a run past the time limit
ends its family's curve. The CSV of the points goes to stdout. No plotting library: the SVG is written by hand.
"""
import math
import subprocess
import sys
import time

RANKS = 64
SIZES = [10**3, 10**4, 10**5, 10**6, 10**7, 10**8, 10**9]
LIMIT_S = 30.0

# family -> (flags, largest N to try)
FAMILIES = {
    "what-if, sequential": (["--batch-size", "8"], 10**9),
    "what-if, shuffled (seedable)": (["--batch-size", "8", "--shuffle", "--use-seedable-sampler", "--seed", "1"], 10**9),
    "iterable, 8 strided workers": (["--dataset", "iterable", "--num-workers", "8", "--worker-split", "strided"], 10**9),
    "hf stream, 1024 shards, 4 workers": (["--dataset", "hf-iterable", "--num-shards", "1024", "--num-workers", "4"], 10**9),
    "Trainer": (["--api", "trainer", "--batch-size", "8"], 10**9),
    "Trainer, resumed at step 1": (["--api", "trainer", "--batch-size", "8", "--resume-at-step", "1"], 10**7),
    "resume what-if, shuffled": (["--batch-size", "8", "--shuffle", "--seed", "1", "--epochs", "3", "--resume-at", "1:1"], 10**6),
    "upgrade 0.14.0 to 1.15.0, shuffled": (["upgrade", "--from", "0.14.0", "--to", "1.15.0", "--shuffle", "--epochs", "3"], 10**9),
}
COLOURS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]


def run(binary, flags, n):
    args = [binary] + flags + ["--ranks", str(RANKS), "--dataset-len", str(n)]
    best = None
    for _ in range(3 if n <= 10**6 else 1):
        start = time.perf_counter()
        try:
            done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=LIMIT_S)
        except subprocess.TimeoutExpired:
            return None
        wall = time.perf_counter() - start
        if done.returncode not in (0, 1):
            return None
        best = wall if best is None else min(best, wall)
    return best


def svg(curves, path):
    w, h, left, right, top, bottom = 760, 460, 70, 250, 20, 50
    xs = [math.log10(n) for n in SIZES]
    x0, x1 = xs[0], xs[-1]
    y0, y1 = -3.0, math.log10(LIMIT_S)  # 1 ms to the limit

    def px(n):
        return left + (math.log10(n) - x0) / (x1 - x0) * (w - left - right)

    def py(t):
        return top + (1 - (math.log10(max(t, 10**y0)) - y0) / (y1 - y0)) * (h - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>']
    for n in SIZES:
        x = px(n)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{h - bottom}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{h - bottom + 15}" text-anchor="middle">1e{int(math.log10(n))}</text>')
    for e in range(int(y0), int(math.floor(y1)) + 1):
        y = py(10**e)
        label = {-3: "1 ms", -2: "10 ms", -1: "0.1 s", 0: "1 s", 1: "10 s"}.get(e, f"1e{e} s")
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{w - right}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    y2 = py(2.0)
    out.append(f'<line x1="{left}" y1="{y2:.1f}" x2="{w - right}" y2="{y2:.1f}" stroke="#c00" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{w - right - 4}" y="{y2 - 4:.1f}" text-anchor="end" fill="#c00">2 s</text>')
    out.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 12}" text-anchor="middle">samples (dataset_len), '
               f'{RANKS} ranks</text>')
    out.append(f'<text x="14" y="{(top + h - bottom) / 2:.0f}" transform="rotate(-90 14 {(top + h - bottom) / 2:.0f})" '
               'text-anchor="middle">whole process, seconds</text>')
    for i, (name, points) in enumerate(curves.items()):
        colour = COLOURS[i % len(COLOURS)]
        pts = [(px(n), py(t)) for n, t in points if t is not None]
        if pts:
            path_d = " ".join(f"{'M' if k == 0 else 'L'}{x:.1f},{y:.1f}" for k, (x, y) in enumerate(pts))
            out.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2"/>')
            for x, y in pts:
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>')
        ly = top + 14 + 16 * i
        out.append(f'<line x1="{w - right + 12}" y1="{ly - 4}" x2="{w - right + 30}" y2="{ly - 4}" stroke="{colour}" '
                   'stroke-width="2"/>')
        out.append(f'<text x="{w - right + 35}" y="{ly}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench/curves.py ACCEL_SIM OUT.svg")
    binary, path = sys.argv[1], sys.argv[2]
    curves = {}
    print("family,dataset_len,seconds")
    for name, (flags, largest) in FAMILIES.items():
        points = []
        for n in SIZES:
            if n > largest:
                break
            t = run(binary, flags, n)
            points.append((n, t))
            print(f"{name},{n},{'' if t is None else f'{t:.4f}'}", flush=True)
            if t is None:
                break
        curves[name] = points
    svg(curves, path)


if __name__ == "__main__":
    main()

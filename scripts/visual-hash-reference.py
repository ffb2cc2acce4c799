#!/usr/bin/env python3
"""Independent reference for docs/visual-hashes.md, written from the document, not the TypeScript.
Prints the test vectors kept in src/vision/visual-hash.test.ts for a few synthetic images."""
import math, json

def pixel(kind, x, y, w, h):
    if kind == "halves":      # left half black, right half white
        v = 0 if x < w // 2 else 255
        return (v, v, v)
    if kind == "formula":     # deterministic colour pattern with no ties
        return ((x * 7 + y * 13) % 256, (x * x + 3 * y) % 256, (x * y + 5 * x + 11) % 256)
    raise ValueError(kind)

def luma(p):
    r, g, b = p
    return 299 * r + 587 * g + 114 * b

def cell_means(kind, w, h, n):
    means = []
    for i in range(n):
        r0, r1 = (i * h) // n, ((i + 1) * h) // n
        for j in range(n):
            c0, c1 = (j * w) // n, ((j + 1) * w) // n
            if r1 > r0 and c1 > c0:
                s = sum(luma(pixel(kind, x, y, w, h)) for y in range(r0, r1) for x in range(c0, c1))
                means.append(s / ((r1 - r0) * (c1 - c0)))
            else:
                y, x = min(h - 1, r0), min(w - 1, c0)
                means.append(float(luma(pixel(kind, x, y, w, h))))
    return means

def bits_above_median(values):
    s = sorted(values)
    m = (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    return "".join("1" if v > m else "0" for v in values)

def bits_above_mean(values):
    t = 0.0
    for v in values:
        t += v
    t /= len(values)
    return "".join("1" if v > t else "0" for v in values)

def phash(kind, w, h):
    f = cell_means(kind, w, h, 32)
    coeffs = []
    for v in range(8):
        for u in range(8):
            c = 0.0
            for y in range(32):
                for x in range(32):
                    c += f[y * 32 + x] * math.cos((2 * x + 1) * u * math.pi / 64) * math.cos((2 * y + 1) * v * math.pi / 64)
            coeffs.append(c)
    # below 1e-9 of DC a coefficient is 0: a symmetry's zeros are rounding noise otherwise
    floor = 1e-9 * abs(coeffs[0])
    coeffs = [coeffs[0]] + [0.0 if abs(c) < floor else c for c in coeffs[1:]]
    return bits_above_median(coeffs)

cases = [("halves", 16, 16), ("halves", 64, 40), ("formula", 37, 23), ("formula", 100, 61), ("formula", 9, 5)]
out = []
for kind, w, h in cases:
    out.append({"kind": kind, "width": w, "height": h, "bmh1": bits_above_mean(cell_means(kind, w, h, 16)), "phash": phash(kind, w, h)})
print(json.dumps(out, indent=1))

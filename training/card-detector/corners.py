"""Corner patches for the corner refiner (the card detector's second stage).

The detector's maps give each card's outline to a map pixel or two: 1-8 % of the card's width on
real photos. The refiner looks at each corner closely. The outline's homography (an upright
rectangle -> the outline in the photo) is used to sample a PATCH x PATCH patch around each corner,
mirrored so that every corner looks like an upper-left one (the card lies to the lower right), and
spanning SPAN_FACTOR x the card's short side either way. The network says where the true corner is
in the patch; the server samples the same patch the same way (src/vision/cards/card-corner-refiner.ts),
so the sampling here and there must agree:
  - photo pixel i has its centre at coordinate i; bilinear sampling; black outside the photo;
  - patch pixel (i, j) is the rectangle point corner_k + (sx_k * u_i, sy_k * v_j) with
    u_i = -S + (i + 0.5) * 2S / PATCH, S = span * short side of the rectangle;
  - the rectangle is W x H, the mean lengths of the outline's opposite sides.
"""
from __future__ import annotations

import hashlib
import math

import cv2
import numpy as np

PATCH = 64
# mirror per corner (upper-left, upper-right, lower-right, lower-left): the card to the lower right
MIRROR = ((1, 1), (-1, 1), (-1, -1), (1, -1))


def rect_of(quad: np.ndarray) -> tuple[float, float]:
    q = np.asarray(quad, np.float64)
    w = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    h = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    return float(w), float(h)


def homography(quad: np.ndarray) -> tuple[np.ndarray, float, float]:
    w, h = rect_of(quad)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.getPerspectiveTransform(src, np.asarray(quad, np.float32)).astype(np.float64), w, h


def patch_grid(quad: np.ndarray, k: int, span: float) -> np.ndarray:
    """Photo coordinates (PATCH, PATCH, 2) of corner k's patch."""
    H, w, h = homography(quad)
    S = span * min(w, h)
    cx, cy = [(0, 0), (w, 0), (w, h), (0, h)][k]
    sx, sy = MIRROR[k]
    u = -S + (np.arange(PATCH) + 0.5) * 2 * S / PATCH
    uu, vv = np.meshgrid(u, u)
    X = cx + sx * uu
    Y = cy + sy * vv
    P = np.stack([X, Y, np.ones_like(X)], -1) @ H.T
    return (P[..., :2] / P[..., 2:3]).astype(np.float32)


def sample_patch(img: np.ndarray, quad: np.ndarray, k: int, span: float) -> np.ndarray:
    g = patch_grid(quad, k, span)
    return cv2.remap(img, g[..., 0], g[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def to_patch(quad: np.ndarray, k: int, span: float, point) -> np.ndarray:
    """A photo point in corner k's patch coordinates, -1..1 across the patch."""
    H, w, h = homography(quad)
    S = span * min(w, h)
    p = np.linalg.solve(H, np.array([point[0], point[1], 1.0]))
    X, Y = p[0] / p[2], p[1] / p[2]
    cx, cy = [(0, 0), (w, 0), (w, h), (0, h)][k]
    sx, sy = MIRROR[k]
    return np.array([(X - cx) * sx / S, (Y - cy) * sy / S])


def from_patch(quad: np.ndarray, k: int, span: float, uv) -> np.ndarray:
    H, w, h = homography(quad)
    S = span * min(w, h)
    cx, cy = [(0, 0), (w, 0), (w, h), (0, h)][k]
    sx, sy = MIRROR[k]
    X, Y = cx + sx * uv[0] * S, cy + sy * uv[1] * S
    p = H @ np.array([X, Y, 1.0])
    return p[:2] / p[2]


def perturb(rng: np.random.Generator, quad: np.ndarray, span: float) -> np.ndarray:
    """A rough outline as the first stage gives it: moved, scaled, turned, each corner off on its own,
    mostly within the patch's reach (span x the short side)."""
    q = np.asarray(quad, np.float64)
    w, h = rect_of(q)
    S = span * min(w, h)
    c = q.mean(0)
    a = rng.normal(0, 0.01)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    scale = 1 + rng.normal(0, 0.25 * S / max(w, h))
    q = (q - c) @ R.T * scale + c + rng.normal(0, 0.15 * S, 2)
    q = q + np.clip(rng.normal(0, rng.uniform(0.05, 0.35) * S, (4, 2)), -0.8 * S, 0.8 * S)
    return q


def in_dev(name: str) -> bool:
    """A fifth of the real train split is kept out of the refiner's training to choose its settings on."""
    return int(hashlib.sha1(name.encode()).hexdigest(), 16) % 5 == 0

"""The character network (scan/recognize.py's Model, scan/train.py's training): its convolution
against a direct sum, and its gradients against finite differences."""

from __future__ import annotations

import numpy as np

from generator.scan.recognize import SIDE, WEIGHTS, Model, convolve, model, pool
from generator.scan.train import gradients, initial


def test_a_convolution_is_the_sum_over_each_pixel_s_neighbourhood():
    r = np.random.default_rng(1)
    x = r.normal(size=(2, 6, 6, 3)).astype(np.float32)
    kernels, bias = r.normal(size=(3 * 3 * 3, 4)).astype(np.float32), r.normal(size=4).astype(np.float32)
    _, out = convolve(x, kernels, bias, 3)
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    k = kernels.reshape(3, 3, 3, 4)  # channel, row, column: the patches' order
    for n, i, j, f in [(0, 0, 0, 0), (1, 5, 5, 3), (0, 2, 3, 1), (1, 0, 4, 2)]:
        direct = sum(padded[n, i + a, j + b, c] * k[c, a, b, f] for a in range(3) for b in range(3) for c in range(3))
        assert np.isclose(out[n, i, j, f], max(direct + bias[f], 0), atol=1e-4)
    assert pool(out).shape == (2, 3, 3, 4)
    assert np.array_equal(pool(out)[1, 2, 2], out[1, 4:6, 4:6].max(axis=(0, 1)))


def test_the_gradients_are_the_loss_s_slopes():
    r = np.random.default_rng(2)
    p = {k: v.astype(np.float64) for k, v in initial(r, 3, 4, 6).items()}
    for name in p:
        if name.startswith("b"):
            p[name] = r.normal(0, 0.1, p[name].shape)
    x, y = r.random((3, SIDE * SIDE + 4)), np.array([1, 5, 14])

    def loss(q):
        z = Model(*(q[k] for k in WEIGHTS)).layers(x)[-1]
        z = z - z.max(1, keepdims=True)
        return -(z[np.arange(3), y] - np.log(np.exp(z).sum(1))).mean()

    g = gradients(p, x, y)
    checked = 0
    for name in p:
        for _ in range(4):
            at = tuple(int(r.integers(0, s)) for s in p[name].shape)
            up = {k: v.copy() for k, v in p.items()}
            down = {k: v.copy() for k, v in p.items()}
            up[name][at] += 1e-6
            down[name][at] -= 1e-6
            slope = (loss(up) - loss(down)) / 2e-6
            assert np.isclose(g[name][at], slope, rtol=1e-4, atol=1e-8), (name, at, g[name][at], slope)
            checked += slope != 0
    assert checked >= 10  # not a check of zeros


def test_the_shipped_weights_are_a_network_of_that_shape():
    net = model()
    assert net.c1.shape[0] == 25 and net.c2.shape[0] == 9 * net.c1.shape[1]
    assert net.w3.shape[0] == 25 * net.c2.shape[1] + 4
    p = net.probabilities(np.zeros((2, SIDE * SIDE + 4), np.float32))
    assert p.shape == (2, 15) and np.allclose(p.sum(1), 1)


def test_a_page_with_no_ink_reads_as_blank_boxes():
    from generator.scan.recognize import Found, read_parts

    empty = Found([], np.zeros((0, SIDE * SIDE + 4), np.float32))
    assert [p.blank for p in read_parts([empty, empty], model())] == [True, True]
    assert read_parts([], model()) == []

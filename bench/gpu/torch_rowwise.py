#!/usr/bin/env python3
"""PyTorch's kernels for the shapes of the row-op templates (rownorm, glu, norm_rope), timed like
kx: CUDA events around each call after warm-up, median of many runs. Prints a Markdown table with
GB/s by each template's own byte formula and the ratio to a device copy of the same bytes, timed
in the same process. Usage: torch_rowwise.py [REPS]"""
import sys

import torch
import torch.nn.functional as F

import cuda_timing  # bench/gpu/cuda_timing.py, beside this script

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
dev = torch.device("cuda")
torch.manual_seed(1)


def median_ms(fn):
    return cuda_timing.median_ms(fn, reps)


def copy_ms(nbytes):
    src = torch.empty(nbytes // 2, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    return median_ms(lambda: dst.copy_(src))


rows, cols = 16384, 8192
x = torch.rand(rows, cols, device=dev, dtype=torch.float16) * 6 - 3
r = torch.rand_like(x) * 6 - 3
gamma = torch.rand(cols, device=dev, dtype=torch.float16) + 0.5
beta = torch.rand(cols, device=dev, dtype=torch.float16) - 0.5
n = rows * cols * 2
glu_rows, glu_cols = 8192, 14336
gu = torch.rand(glu_rows, 2 * glu_cols, device=dev, dtype=torch.float16) * 6 - 3
tokens, heads, d = 16384, 32, 128
q = torch.rand(tokens, heads, d, device=dev, dtype=torch.float16) * 6 - 3
w = torch.rand(d, device=dev, dtype=torch.float16) + 0.5
cos_sin = torch.rand(4096, d, device=dev, dtype=torch.float32) * 2 - 1
pos = torch.randint(0, 4096, (tokens,), device=dev)


def rope(t):
    cs = cos_sin[pos].to(t.dtype)[:, None, :]
    c, s = cs[..., : d // 2], cs[..., d // 2:]
    a, b = t[..., : d // 2], t[..., d // 2:]
    return torch.cat((a * c - b * s, b * c + a * s), dim=-1)


cases = [
    # name, fn, bytes by the template's formula
    ("softmax 16384x8192 f16", lambda: torch.softmax(x, dim=-1), 2 * n),
    ("layer_norm 16384x8192 f16", lambda: F.layer_norm(x, (cols,), gamma, beta), 2 * n),
    ("rms_norm 16384x8192 f16", lambda: F.rms_norm(x, (cols,), gamma), 2 * n),
    ("x + r, layer_norm (unfused) f16", lambda: F.layer_norm(x + r, (cols,), gamma, beta), 4 * n),
    ("softmax, dropout(0.1) (unfused) f16", lambda: F.dropout(torch.softmax(x, dim=-1), 0.1), 2 * n),
    ("silu(g) * u 8192x14336 f16", lambda: F.silu(gu[:, :glu_cols]) * gu[:, glu_cols:], 3 * glu_rows * glu_cols * 2),
    ("gelu(g) * u 8192x14336 f16", lambda: F.gelu(gu[:, :glu_cols]) * gu[:, glu_cols:], 3 * glu_rows * glu_cols * 2),
    ("rms_norm, rope (unfused) 16384x32x128 f16", lambda: rope(F.rms_norm(q, (d,), w)), 2 * tokens * heads * d * 2),
]
print(f"# PyTorch {torch.__version__} on {torch.cuda.get_device_name()}, median of {reps}\n")
print("| op | median ms | GB/s (template's bytes) | vs device copy |")
print("|---|---|---|---|")
for name, fn, nbytes in cases:
    ms = median_ms(fn)
    cp = copy_ms(nbytes)
    print(f"| {name} | {ms:.3f} | {nbytes / ms / 1e6:.0f} | {100 * cp / ms:.0f}% of copy ({cp:.3f} ms) |")

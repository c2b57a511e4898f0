#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention on the attention template's shapes, timed like kx: CUDA
events around each call after warm-up, median of many runs, with the FLOPs counted the template's
way (4 * batch * heads * head_dim * visible (query, key) pairs). Each backend PyTorch has here is
timed on its own (FlashAttention-2, cuDNN, memory-efficient); a backend that refuses the shape is
reported as such. Usage: torch_attention.py [REPS]"""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import cuda_timing  # bench/gpu/cuda_timing.py, beside this script

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
dev = torch.device("cuda")
torch.manual_seed(1)


def median_ms(fn):
    return cuda_timing.median_ms(fn, reps)


def pairs(sq, sk, causal):
    if not causal:
        return sq * sk
    return sq * (sk - sq) + sq * (sq + 1) // 2 if sk >= sq else sk * (sk + 1) // 2


cases = [  # batch, heads, kv_heads, seq_q, seq_k, head_dim, causal, dtype
    (4, 16, 16, 4096, 4096, 128, False, torch.float16),
    (4, 16, 16, 4096, 4096, 128, True, torch.float16),
    (4, 16, 16, 4096, 4096, 128, False, torch.bfloat16),
    (4, 16, 16, 4096, 4096, 64, False, torch.float16),
    (4, 16, 16, 4096, 4096, 256, False, torch.float16),
    (4, 32, 8, 4096, 4096, 128, True, torch.float16),
]
backends = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION), ("efficient", SDPBackend.EFFICIENT_ATTENTION)]
print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}\n")
print("| batch x heads (kv) | seq q x k | d | mask | dtype | backend | ms | TFLOP/s |")
print("|---|---|---|---|---|---|---|---|")
for b, h, hkv, sq, sk, d, causal, dt in cases:
    q = torch.randn(b, h, sq, d, device=dev, dtype=dt) * 2
    k = torch.randn(b, hkv, sk, d, device=dev, dtype=dt) * 2
    v = torch.rand(b, hkv, sk, d, device=dev, dtype=dt) * 2 - 1
    flops = 4 * b * h * d * pairs(sq, sk, causal)
    for name, backend in backends:
        try:
            with sdpa_kernel(backend):
                # is_causal aligns top-left in PyTorch; with seq_q == seq_k it is the template's mask.
                fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=hkv != h)
                ms = median_ms(fn)
            print(f"| {b} x {h} ({hkv}) | {sq} x {sk} | {d} | {'causal' if causal else 'none'} | {str(dt)[6:]} | {name} | {ms:.3f} | {flops / ms / 1e9:.1f} |")
        except Exception as e:  # a backend that does not take this shape
            print(f"| {b} x {h} ({hkv}) | {sq} x {sk} | {d} | {'causal' if causal else 'none'} | {str(dt)[6:]} | {name} | refused: {str(e).splitlines()[0][:60]} | |")

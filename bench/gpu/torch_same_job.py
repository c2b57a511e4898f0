#!/usr/bin/env python3
"""PyTorch on the shapes of the transformer runs of one job, in the same job on the same GPU, and
each kernel's time against it: scaled_dot_product_attention for the attention runs (the default
dispatch, which is what a PyTorch user gets, and each backend on its own), softmax, layer_norm and
rms_norm for the row ops, and PyTorch's unfused sequences for the fused ops (x + r then
layer_norm, softmax then dropout, silu/gelu(gate) * up, rms_norm then the rotary embedding,
layer_norm then linear).
Timed like kx: CUDA events around each call after warm-up, median of many runs.

Reads the runs from open_issues.sh's transformer part (one kx run --json per line, with its
template and label) and prints a Markdown table. Usage: torch_same_job.py RUNS.jsonl [REPS]"""
import json
import re
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import cuda_timing  # bench/gpu/cuda_timing.py, beside this script

runs_file = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
dev = torch.device("cuda")
torch.manual_seed(1)
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
BACKENDS = [("FlashAttention-2", SDPBackend.FLASH_ATTENTION), ("cuDNN", SDPBackend.CUDNN_ATTENTION),
            ("memory-efficient", SDPBackend.EFFICIENT_ATTENTION)]


def median_ms(fn):
    return cuda_timing.median_ms(fn, reps)


def attention(run, sizes):
    # attention[_wgmma]_<dtype>_d<D>_<mask>_...
    m = re.match(r"attention(?:_wgmma)?_(\w+?)_d(\d+)_(none|causal)_", run["variant"])
    dtype, d, mask = DTYPES[m.group(1)], int(m.group(2)), m.group(3)
    b, h, hkv, sq, sk = (sizes[k] for k in ("batch", "heads", "kv_heads", "seq_q", "seq_k"))
    q = torch.randn(b, h, sq, d, device=dev, dtype=dtype) * 2
    k = torch.randn(b, hkv, sk, d, device=dev, dtype=dtype) * 2
    v = torch.rand(b, hkv, sk, d, device=dev, dtype=dtype) * 2 - 1
    causal = mask == "causal"
    if causal and sq != sk:
        return None  # PyTorch's is_causal aligns top-left, the template bottom-right
    call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=hkv != h)
    default = median_ms(call)
    each = []
    for name, backend in BACKENDS:
        try:
            with sdpa_kernel(backend):
                each.append((median_ms(call), name))
        except RuntimeError:  # a backend that does not take this shape
            pass
    best = min(each) if each else (default, "default")
    op = f"scaled_dot_product_attention, {b} x {h} x {sq} x {sk}, d = {d}, {mask}, {m.group(1)}"
    detail = ", ".join(f"{name} {ms:.3f}" for ms, name in sorted(each))
    return op, default, f"fastest backend: {best[1]} {best[0]:.3f} ms ({detail})"


def rows_op(run, sizes):
    # rownorm_<op>_<fuse>_<dtype>_...
    m = re.match(r"rownorm_(softmax|layernorm|rmsnorm)_(none|residual|dropout)_(\w+?)_", run["variant"])
    op, fuse, dtype = m.group(1), m.group(2), DTYPES[m.group(3)]
    rows, cols = sizes["rows"], sizes["cols"]
    x = torch.rand(rows, cols, device=dev, dtype=dtype) * 6 - 3
    r = torch.rand_like(x) * 6 - 3
    gamma = torch.rand(cols, device=dev, dtype=dtype) + 0.5
    beta = torch.rand(cols, device=dev, dtype=dtype) - 0.5
    norm = {"softmax": lambda t: torch.softmax(t, dim=-1),
            "layernorm": lambda t: F.layer_norm(t, (cols,), gamma, beta),
            "rmsnorm": lambda t: F.rms_norm(t, (cols,), gamma)}[op]
    name = {"softmax": "softmax", "layernorm": "layer_norm", "rmsnorm": "rms_norm"}[op]
    if fuse == "residual":
        return f"x + r, then {name} (unfused), {rows} x {cols}", median_ms(lambda: norm(x + r)), ""
    if fuse == "dropout":
        return f"{name}, then dropout(0.1) (unfused), {rows} x {cols}", median_ms(lambda: F.dropout(norm(x), 0.1)), ""
    return f"{name}, {rows} x {cols}, {m.group(3)}", median_ms(lambda: norm(x)), ""


def glu(run, sizes):
    m = re.match(r"glu_(swiglu|geglu)_(\w+?)_", run["variant"])
    dtype = DTYPES[m.group(2)]
    rows, cols = sizes["rows"], sizes["cols"]
    gu = torch.rand(rows, 2 * cols, device=dev, dtype=dtype) * 6 - 3
    act = F.silu if m.group(1) == "swiglu" else F.gelu
    return (f"{act.__name__}(gate) * up (unfused), {rows} x {cols}",
            median_ms(lambda: act(gu[:, :cols]) * gu[:, cols:]), "")


def norm_rope(run, sizes):
    m = re.match(r"norm_rope_(\w+?)_d(\d+)_", run["variant"])
    dtype, d = DTYPES[m.group(1)], int(m.group(2))
    tokens, heads, max_pos = sizes["tokens"], sizes["heads"], sizes["max_pos"]
    q = torch.rand(tokens, heads, d, device=dev, dtype=dtype) * 6 - 3
    w = torch.rand(d, device=dev, dtype=dtype) + 0.5
    cos_sin = torch.rand(max_pos, d, device=dev, dtype=torch.float32) * 2 - 1
    pos = torch.randint(0, max_pos, (tokens,), device=dev)

    def rope(t):
        cs = cos_sin[pos].to(t.dtype)[:, None, :]
        c, s = cs[..., : d // 2], cs[..., d // 2:]
        a, b = t[..., : d // 2], t[..., d // 2:]
        return torch.cat((a * c - b * s, b * c + a * s), dim=-1)

    return f"rms_norm, then the rotary embedding (unfused), {tokens} x {heads} x {d}", median_ms(lambda: rope(F.rms_norm(q, (d,), w))), ""


def ln_linear(run, sizes):
    m = re.match(r"ln_linear(?:_wgmma)?_(f16|bf16)_", run["variant"])
    dtype = DTYPES[m.group(1)]
    rows, cols, k = sizes["M"], sizes["N"], sizes["K"]
    x = torch.rand(rows, k, device=dev, dtype=dtype) * 4 - 1
    w = torch.rand(cols, k, device=dev, dtype=dtype) * 2 - 1
    gamma = torch.rand(k, device=dev, dtype=dtype) + 0.5
    beta = torch.rand(k, device=dev, dtype=dtype) - 0.5
    return (f"layer_norm, then linear (unfused), {rows} x {k} by {cols} x {k}",
            median_ms(lambda: F.linear(F.layer_norm(x, (k,), gamma, beta), w)), "")


TIMERS = {"attention": attention, "attention_wgmma": attention, "rownorm": rows_op, "glu": glu, "norm_rope": norm_rope,
          "ln_linear": ln_linear, "ln_linear_wgmma": ln_linear}

print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name()}, median of {reps} calls after 5 warm-up calls, "
      f"in the same job as the kernels' runs ({runs_file.split('/')[-1]}). Above 100 % the kernel is faster.\n")
print("| template | run | kernel ms | PyTorch | PyTorch ms | kernel / PyTorch speed | |")
print("|---|---|---|---|---|---|---|")
with open(runs_file) as f:
    runs = [json.loads(line) for line in f if line.strip()]
for run in runs:
    timer = TIMERS.get(run["template"])
    if timer is None or not run.get("ok"):
        continue
    timed = timer(run, run["sizes"])
    torch.cuda.empty_cache()
    if timed is None:
        continue
    op, ms, note = timed
    check = "PASS" if run.get("correctness", {}).get("passed") else "FAIL"
    print(f"| {run['template']} | {run['label']} ({check}) | {run['median_ms']:.3f} | {op} | {ms:.3f} | "
          f"{100 * ms / run['median_ms']:.1f} % | {note} |")

#!/usr/bin/env python3
"""Times real PyTorch training steps on the local GPU, as an independent check of the simulator.

The configurations are ones `simtrain run` can predict from a profile measured on the same card with
simtrain-calibrate:
  - ResNet-50 (torchvision), AMP fp16 with a gradient scaler, SGD with momentum, batch 128 and 256, in
    PyTorch's default NCHW layout and in channels_last;
  - the first 8 decoder layers of Llama-2-7B with its embeddings and LM head (models/llama2-7b-8layers.toml),
    bf16 autocast over fp32 weights, fused AdamW, one sequence of 4,096 tokens.

Data is synthetic and already on the GPU, so the step time is the GPU's, as in the simulator. Each step time
is the median over timed steps, each bracketed by CUDA events, after warm-up steps (cudnn.benchmark picks
convolution algorithms during warm-up, as in real training). With --trace-dir, a few more steps of each
model are recorded with torch.profiler and written as Kineto JSON (gzip).

Usage: python3 tools/pytorch_step_time.py -o RESULTS.json [--trace-dir DIR] [--steps N] [--warmup N]
"""
import argparse
import gzip
import json
import os
import platform
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn


def step_times(step, warmup, steps):
    """Median, p10 and p90 of `steps` timed calls of step() after `warmup` untimed ones, in seconds."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(steps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(f * len(times)))]
    return {"median_s": statistics.median(times), "p10_s": q(0.1), "p90_s": q(0.9), "steps": steps}


def record_trace(step, path):
    """A Kineto trace of three steps, written gzip-compressed."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            step()
        torch.cuda.synchronize()
    raw = path[: -len(".gz")]
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as src, gzip.open(path, "wb", compresslevel=9) as dst:
        dst.write(src.read())
    os.remove(raw)


def resnet50_step(batch, channels_last):
    import torchvision

    model = torchvision.models.resnet50().cuda()
    memory_format = torch.channels_last if channels_last else torch.contiguous_format
    model = model.to(memory_format=memory_format)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    scaler = torch.amp.GradScaler("cuda")
    images = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=memory_format)
    labels = torch.randint(0, 1000, (batch,), device="cuda")

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

    return step


class DecoderLayer(nn.Module):
    """A Llama decoder layer: RMSNorm, rotary causal self-attention (fused SDPA), RMSNorm, SwiGLU MLP."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.RMSNorm(hidden, eps=1e-5)
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
        self.out = nn.Linear(hidden, hidden, bias=False)
        self.norm2 = nn.RMSNorm(hidden, eps=1e-5)
        self.gate_up = nn.Linear(hidden, 2 * ffn, bias=False)
        self.down = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x, cos, sin):
        b, s, h = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, h // self.heads).transpose(1, 3).unbind(2)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(attn.transpose(1, 2).reshape(b, s, h))
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class Decoder(nn.Module):
    def __init__(self, layers, hidden, heads, ffn, vocab, seq):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(DecoderLayer(hidden, heads, ffn) for _ in range(layers))
        self.norm = nn.RMSNorm(hidden, eps=1e-5)
        self.head = nn.Linear(hidden, vocab, bias=False)
        dim = hidden // heads
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
        angles = torch.outer(torch.arange(seq, dtype=torch.float32), inv)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        return self.head(self.norm(x))


def llama_step(layers, batch, seq):
    vocab = 32000
    model = Decoder(layers, 4096, 32, 11008, vocab, seq).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, vocab, (batch, seq), device="cuda")
    labels = torch.randint(0, vocab, (batch * seq,), device="cuda")

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens)
        loss = F.cross_entropy(logits.float().view(-1, vocab), labels)
        loss.backward()
        optimizer.step()

    return step, sum(p.numel() for p in model.parameters())


def attention_times(batch, heads, seq, head_dim, causal, warmup, steps):
    """Fused SDPA (PyTorch's flash or cuDNN kernel) alone, bf16: forward, and forward plus backward."""
    q, k, v = (torch.randn(batch, heads, seq, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    grad = torch.randn_like(q)
    forward = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    both = lambda: forward().backward(grad)
    return {"forward": step_times(forward, warmup, steps), "forward_backward": step_times(both, warmup, steps)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--trace-dir")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=15)
    args = parser.parse_args()

    torch.backends.cudnn.benchmark = True
    props = torch.cuda.get_device_properties(0)
    results = {
        "gpu": torch.cuda.get_device_name(0),
        "sm_count": props.multi_processor_count,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "python": platform.python_version(),
        # The command without its output paths, which name folders of the machine it ran on.
        "command": f"tools/pytorch_step_time.py --steps {args.steps} --warmup {args.warmup}",
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "runs": [],
    }

    def save():
        with open(args.output + ".tmp", "w") as f:
            json.dump(results, f, indent=2)
        os.replace(args.output + ".tmp", args.output)

    configs = []
    for batch in (128, 256):
        for channels_last in (False, True):
            name = f"resnet50 amp b{batch} {'channels_last' if channels_last else 'nchw'}"
            configs.append((name, lambda b=batch, c=channels_last: (resnet50_step(b, c), 25557032),
                            {"model": "resnet50", "precision": "amp", "batch": batch,
                             "layout": "channels_last" if channels_last else "nchw"}))
    configs.append(("llama2-7b-8layers amp-bf16 b1 s4096", lambda: llama_step(8, 1, 4096),
                    {"model": "models/llama2-7b-8layers.toml", "precision": "amp-bf16", "batch": 1,
                     "seq_len": 4096}))

    for batch, heads, seq, head_dim, causal in ((1, 32, 4096, 128, True), (4, 16, 512, 64, False)):
        name = f"sdpa bf16 b{batch} h{heads} s{seq} d{head_dim} {'causal' if causal else 'full'}"
        entry = {"name": name, "batch": batch, "heads": heads, "seq_len": seq, "head_dim": head_dim,
                 "causal": causal}
        try:
            entry.update(attention_times(batch, heads, seq, head_dim, causal, args.warmup, args.steps))
            print(f"{name}: forward {entry['forward']['median_s'] * 1e3:.3f} ms, forward+backward "
                  f"{entry['forward_backward']['median_s'] * 1e3:.3f} ms", flush=True)
        except Exception as error:
            entry["error"] = f"{type(error).__name__}: {error}"
        results["runs"].append(entry)
        save()

    for name, build, setup in configs:
        entry = dict(setup, name=name)
        try:
            step, parameters = build()
            entry["parameters"] = parameters
            entry.update(step_times(step, args.warmup, args.steps))
            entry["peak_memory_bytes"] = torch.cuda.max_memory_allocated()
            if args.trace_dir and (name.endswith("b256 channels_last") or name.startswith("llama")):
                path = os.path.join(args.trace_dir, "kineto_" + name.split()[0] + ".json.gz")
                record_trace(step, path)
                entry["trace"] = os.path.basename(path)
            print(f"{name}: {entry['median_s'] * 1e3:.2f} ms per step (p10 {entry['p10_s'] * 1e3:.2f}, "
                  f"p90 {entry['p90_s'] * 1e3:.2f})", flush=True)
        except Exception as error:  # one failed configuration must not lose the others
            entry["error"] = f"{type(error).__name__}: {error}"
            print(f"{name}: FAILED {entry['error']}", flush=True)
        results["runs"].append(entry)
        save()
        step = None
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


if __name__ == "__main__":
    main()

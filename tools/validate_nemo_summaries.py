#!/usr/bin/env python3
"""Predicts two of NVIDIA NeMo's published performance tables, which no simtrain figure was fitted to, and prints
predicted vs measured tokens/s per GPU:

- validation/reference/training/nemo_2407_h100_pretrain.csv: NeMo 24.07 pre-training on DGX H100 in FP8 (GPT-3 5B
  to 175B, Llama 2 and 3, Nemotron-3 8B and 22B, Nemotron-4 340B; tensor, pipeline, virtual and context
  parallelism);
- validation/reference/training/nemo_long_sequence_cp.csv: Llama 2 7B on DGX H100 (NeMo 24.03) and Llama 3 8B on
  DGX B200 (NeMo 25.04) at 4K to 1M tokens per sequence, split over up to 32 GPUs by context parallelism.

The software of the time is set as the tables' run settings say (each CSV's header gives the source):
NeMo-Framework-Launcher set NVTE_FUSED_ATTN=0 from February to August 2024, so Transformer Engine ran
FlashAttention-2 instead of cuDNN's fused attention (`--attention flash2`) on the H100 rows of NeMo 24.03 and
24.07, except GPT-3 175B, whose launcher example turned cuDNN's attention back on in July 2024. FP8 is
Transformer Engine's delayed scaling on the 2024 containers and current (tensorwise) scaling on 25.04's, as its
performance summary states. Other settings are Megatron-Core's of the recipes: the distributed optimizer with
overlapped gradient reduction and parameter gathering, sequence parallelism and userbuffers with TP > 1, and
the host profile the Megatron-Bridge validation uses.

Diagnostic (--compare-attention): the H100 rows also run with cuDNN's attention as simtrain costs it for
current software, which shows the error the launcher setting accounts for, growing with the sequence.

Each table is held to its GUARDS entry (the MAPE reached when it was added, rounded up: a regression fails the
run) and compared with the target (--max-mape; "meets" / "misses target"). Exit status 1 when a table misses
its guard, 2 when simtrain fails.
usage: tools/validate_nemo_summaries.py [--simtrain PATH] [--max-mape 10] [--compare-attention] [-j JOBS]
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
REFERENCE = os.path.join(ROOT, "validation", "reference", "training")
HOST = os.path.join(ROOT, "calibration", "hosts", "h200-run-a.json")


def model_file(name):
    return os.path.join(ROOT, "validation", "models", name + ".toml")


# The pre-training table's models: zoo keys, or model files written from NeMo's model configurations.
MODELS = {
    "GPT3-5B": model_file("gpt3-5b"), "GPT3-20B": model_file("gpt3-20b"), "GPT3-175B": "gpt3-175b",
    "LLAMA2-7B": "llama2-7b", "LLAMA2-13B": "llama2-13b", "LLAMA2-70B": "llama2-70b",
    "Nemotron-8B": model_file("nemotron3-8b"), "Nemotron-22B": model_file("nemotron3-22b"),
    "Nemotron-340B": model_file("nemotron4-340b"), "LLAMA3-8B": "llama3-8b", "LLAMA3-70B": "llama3-70b",
}

# NeMo-Framework-Launcher's examples/training/gpt/h100/175b_fp8_16node.sh set NVTE_FUSED_ATTN=1 from 2024-07-17:
# the one model of the 24.07 table that ran cuDNN's attention.
CUDNN_ATTENTION_2407 = {"GPT3-175B"}

# The long-sequence table's models and NeMo's shapes for its FLOP count (layers, hidden, FFN, query groups, heads,
# vocabulary): Llama 2 7B and Llama 3 8B (LLM_VOCAB_SIZE_MAP in nemo/utils/flops_formulas.py).
LONG_SEQUENCE = {
    "DGX-H100": ("llama2-7b", "dgx-h100", (32, 4096, 11008, 32, 32, 32000), "delayed"),
    "DGX-B200": ("llama3-8b", "dgx-b200", (32, 4096, 14336, 8, 32, 128256), "tensorwise"),
}


# Per table, the MAPE it reached when added (2026-12-06), rounded up.
GUARDS = {"NeMo 24.07, DGX H100": 4.5, "long sequences, NeMo 25.04.rc2, DGX-B200": 13.0,
          "long sequences, NeMo 24.03.01, DGX-H100": 5.0}


def nemo_flops_per_token(shape, seq):
    """NeMo's model FLOPs per token for Llama before 2025-08 (no causal discount of the attention)."""
    layers, hidden, ffn, groups, heads, vocab = shape
    return layers * hidden * hidden * (12 + 12 * groups / heads + 18 * ffn / hidden + 12 * seq / hidden
                                       + 6 * vocab / (layers * hidden))


def read(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def megatron_options(tp):
    args = ["--distributed-optimizer", "--host", HOST, "--allow-oom"]
    if tp > 1:
        args += ["--sp", "--tp-comm-overlap"]
    return args


class Case:
    """One row to predict: its label, the `simtrain run` arguments, the measured tokens/s per GPU and the tokens
    of one step (to turn the predicted iteration time into tokens/s per GPU)."""

    def __init__(self, table, label, args, measured, tokens, gpus, attention):
        self.table, self.label, self.args = table, label, args
        self.measured, self.tokens, self.gpus, self.attention = measured, tokens, gpus, attention


def pretrain_cases(path):
    cases = []
    for row in read(path):
        tp, seq = int(row["tp"]), int(row["seq_len"])
        attention = "flash" if row["model"] in CUDNN_ATTENTION_2407 else "flash2"
        args = ["--model", MODELS[row["model"]], "--gpus", row["gpus"], "--platform", "dgx-h100",
                "--tp", row["tp"], "--pp", row["pp"], "--cp", row["cp"], "--vpp", row["vp"],
                "--micro-batch", row["micro_batch"], "--global-batch", row["global_batch"], "--seq-len", str(seq),
                "--precision", "fp8", "--fp8-recipe", "delayed", *megatron_options(tp)]
        label = f"{row['model']} {row['gpus']} GPUs tp{tp} pp{row['pp']} cp{row['cp']} vp{row['vp']}"
        cases.append(Case("NeMo 24.07, DGX H100", label, args, float(row["tokens_per_s_per_gpu"]),
                          int(row["global_batch"]) * seq, int(row["gpus"]), attention))
    return cases


def long_sequence_cases(path):
    cases = []
    for row in read(path):
        model, platform, shape, fp8_recipe = LONG_SEQUENCE[row["system"]]
        tp, pp, dp, cp = (int(row[k]) for k in ("tp", "pp", "dp", "cp"))
        gpus, seq = tp * pp * dp * cp, int(row["seq_len_k"]) * 1024
        measured = float(row["tflops_with_cp"]) * 1e12 / nemo_flops_per_token(shape, seq)
        attention = "flash2" if row["system"] == "DGX-H100" else "flash"
        args = ["--model", model, "--gpus", str(gpus), "--platform", platform, "--tp", str(tp), "--pp", str(pp),
                "--cp", str(cp), "--micro-batch", "1", "--global-batch", row["batch"], "--seq-len", str(seq),
                "--precision", "fp8", "--fp8-recipe", fp8_recipe, *megatron_options(tp)]
        label = f"{model} {row['seq_len_k']}K {gpus} GPUs tp{tp} pp{pp} dp{dp} cp{cp}"
        cases.append(Case(f"long sequences, NeMo {row['container']}, {row['system']}", label, args, measured,
                          int(row["batch"]) * seq, gpus, attention))
    return cases


def predict(simtrain, case, attention, tmp, index):
    out = os.path.join(tmp, f"case{index}-{attention}.json")
    cmd = [simtrain, "run", *case.args, "--attention", attention, "--json", out]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise RuntimeError(f"{case.label}: {lines[-1] if lines else f'exit status {proc.returncode}'}")
    with open(out) as f:
        result = json.load(f)
    memory = result["peak_memory_bytes"] / result["memory_capacity_bytes"]
    return case.tokens / (result["iteration_time_s"] * case.gpus), memory


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(ROOT, "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--pretrain", default=os.path.join(REFERENCE, "nemo_2407_h100_pretrain.csv"))
    parser.add_argument("--long-sequence", default=os.path.join(REFERENCE, "nemo_long_sequence_cp.csv"))
    parser.add_argument("--max-mape", type=float, default=10.0, help="per table, percent")
    parser.add_argument("--compare-attention", action="store_true",
                        help="also run the FlashAttention-2 rows with cuDNN's attention (diagnostic)")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    args = parser.parse_args()

    cases = pretrain_cases(args.pretrain) + long_sequence_cases(args.long_sequence)
    runs = [(i, case, case.attention) for i, case in enumerate(cases)]
    if args.compare_attention:
        runs += [(i, case, "flash") for i, case in enumerate(cases) if case.attention == "flash2"]
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {(i, attention): pool.submit(predict, args.simtrain, case, attention, tmp, i)
                   for i, case, attention in runs}
        try:
            results = {key: future.result() for key, future in futures.items()}
        except RuntimeError as failure:
            print(f"simtrain failed: {failure}")
            sys.exit(2)

    errors_by_table, cudnn_errors = {}, {}
    table = None
    for i, case in enumerate(cases):
        if case.table != table:
            table = case.table
            print(f"\n{table}\n{'configuration':<46} {'attention':<9} {'measured':>9} {'predicted':>9} {'error':>7} "
                  f"{'memory':>6}" + (f" {'with cuDNN attention':>21}" if args.compare_attention else ""))
        predicted, memory = results[(i, case.attention)]
        error = (predicted - case.measured) / case.measured * 100
        errors_by_table.setdefault(table, []).append(error)
        line = (f"{case.label:<46} {case.attention:<9} {case.measured:>9.0f} {predicted:>9.0f} {error:>+6.1f}% "
                f"{memory:>6.2f}")
        if (i, "flash") in results and case.attention != "flash":
            cudnn = (results[(i, "flash")][0] - case.measured) / case.measured * 100
            cudnn_errors.setdefault(table, []).append(cudnn)
            line += f" {cudnn:>+20.1f}%"
        print(line, flush=True)

    print("\nper table (tokens/s per GPU):")
    failed = False
    for table, errors in errors_by_table.items():
        mape = sum(abs(e) for e in errors) / len(errors)
        mean = sum(errors) / len(errors)
        guard = GUARDS[table]
        verdict = "meets target" if mape <= args.max_mape else "misses target"
        if mape > guard:
            verdict, failed = f"FAIL: above its guard of {guard}%", True
        line = (f"  {table:<40} {len(errors):>2} rows: MAPE {mape:5.1f}% (target {args.max_mape:.0f}%), mean "
                f"error {mean:+5.1f}%, worst {max(abs(e) for e in errors):5.1f}%  {verdict}")
        if table in cudnn_errors:
            others = cudnn_errors[table]
            line += (f"; with cuDNN attention on the {len(others)} FlashAttention-2 rows: MAPE "
                     f"{sum(abs(e) for e in others) / len(others):.1f}%")
        print(line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Megatron-LM's arguments as they are: a line pasted from Megatron's examples/sc21 scripts (CONFIG.sh's
# MEGATRON_PARAMS with run_table_1.sh's sizes) models the same run as simtrain's own options, Megatron's
# defaults apply where they differ from simtrain's, and disagreements or unmodelled arguments are one line.
source "$(dirname "$0")/lib.bash"

time_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["iteration_time_s"])' "$1"; }

# SC21 Table 1, GPT-18B: TP 8, PP 1, MBS 8, GBS 1024, 40 layers, hidden 6144, 48 heads, DDP torch, 32 nodes.
sc21_common=(--data-path /data/my-gpt2_text_document --vocab-file /data/gpt2-vocab.json
  --merge-file /data/gpt2-merges.txt --log-interval 5 --seq-length 2048 --max-position-embeddings 2048
  --train-iters 500 --lr-decay-iters 320 --lr 0.0001 --min-lr 0.00001 --lr-decay-style cosine
  --lr-warmup-fraction 0.01 --split 969,30,1 --eval-iters 100 --eval-interval 1000 --clip-grad 1.0 --fp16
  --loss-scale 8192)
"$simtrain" run --gpus 256 --platform dgx-a100 --recompute-method uniform --tensor-model-parallel-size 8 \
  --pipeline-model-parallel-size 1 --micro-batch-size 8 --global-batch-size 1024 --num-layers 40 \
  --hidden-size 6144 --num-attention-heads 48 --DDP-impl torch "${sc21_common[@]}" \
  --json "$work/pasted.json" --omit-wall-time >/dev/null 2>"$work/notes.txt"
"$simtrain" run --gpus 256 --platform dgx-a100 --model megatron-gpt-18b --tp 8 --pp 1 --micro-batch 8 \
  --global-batch 1024 --seq-len 2048 --recompute full --precision amp --steps 500 \
  --json "$work/own.json" --omit-wall-time >/dev/null
check "a pasted SC21 line (GPT-18B) gives the iteration time of simtrain's own options" \
  test "$(time_of "$work/pasted.json")" = "$(time_of "$work/own.json")"
check "the arguments with no effect on a step's time are listed, not dropped" \
  grep -q "note: Megatron-LM arguments that do not change a step's time: --data-path --vocab-file" "$work/notes.txt"
python3 - "$work/pasted.json" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
w = r["inputs"]["workload"]
assert (w["parallel"]["tp"], w["parallel"]["pp"], w["parallel"]["dp"]) == (8, 1, 32), w
assert (w["micro_batch"], w["global_batch"], w["seq_len"], w["recompute"]) == (8, 1024, 2048, "full"), w
assert r["steps"] == 500, r["steps"]  # --train-iters
print("ok   the Result records the plan the Megatron line describes, and --train-iters its steps")
PY

# GPT-76B: --num-layers-per-virtual-pipeline-stage 5 over 60 layers and 4 stages is simtrain's --vpp 3, and
# --DDP-impl local reduces gradients after backward (--no-overlap-grad-reduce).
"$simtrain" run --gpus 32 --platform dgx-a100 --recompute-method uniform --num-layers-per-virtual-pipeline-stage 5 \
  --tensor-model-parallel-size 8 --pipeline-model-parallel-size 4 --micro-batch-size 2 --global-batch-size 64 \
  --num-layers 60 --hidden-size 10240 --num-attention-heads 80 --DDP-impl local --seq-length 2048 --fp16 \
  --json "$work/pasted76.json" --omit-wall-time >/dev/null 2>&1
"$simtrain" run --gpus 32 --platform dgx-a100 --model megatron-gpt-76b --tp 8 --pp 4 --vpp 3 --micro-batch 2 \
  --global-batch 64 --recompute full --precision amp --no-overlap-grad-reduce \
  --json "$work/own76.json" --omit-wall-time >/dev/null
check "layers per virtual stage become --vpp (GPT-76B: 60 / (4 x 5) = 3)" \
  test "$(time_of "$work/pasted76.json")" = "$(time_of "$work/own76.json")"

# Megatron does not overlap gradient reduction unless told to: the same line with --overlap-grad-reduce
# hides more of it.
llama=(--gpus 64 --platform dgx-h100 --model llama2-7b --tensor-model-parallel-size 2 --micro-batch-size 1
  --global-batch-size 32 --seq-length 4096 --bf16)
"$simtrain" run "${llama[@]}" --json "$work/serial.json" --omit-wall-time >/dev/null
"$simtrain" run "${llama[@]}" --overlap-grad-reduce --json "$work/overlapped.json" --omit-wall-time >/dev/null
check "Megatron's default reduces gradients after backward; --overlap-grad-reduce is faster" python3 -c '
import json, sys
serial, overlapped = (json.load(open(p)) for p in sys.argv[1:])
assert serial["inputs"]["workload"]["overlap_grad_reduce"] is False
assert overlapped["iteration_time_s"] < serial["iteration_time_s"], (overlapped["iteration_time_s"], serial["iteration_time_s"])' \
  "$work/serial.json" "$work/overlapped.json"

# The loss fusion: Megatron-Bridge's Transformer Engine kernels read the logits twice where Megatron-LM's default
# passes move them in fp32 several times, so the same line with it is faster; its implementation alone is refused.
"$simtrain" run "${llama[@]}" --cross-entropy-loss-fusion --cross-entropy-fusion-impl te \
  --json "$work/fused_loss.json" --omit-wall-time >/dev/null
check "--cross-entropy-loss-fusion --cross-entropy-fusion-impl te is recorded and faster than the unfused loss" \
  python3 -c '
import json, sys
unfused, fused = (json.load(open(p)) for p in sys.argv[1:])
assert fused["inputs"]["workload"]["cross_entropy_fusion_impl"] == "te", fused["inputs"]["workload"]
assert "cross_entropy_fusion_impl" not in unfused["inputs"]["workload"]
assert fused["iteration_time_s"] < unfused["iteration_time_s"], (fused["iteration_time_s"], unfused["iteration_time_s"])' \
  "$work/serial.json" "$work/fused_loss.json"
expect_error "a loss implementation without the fusion" \
  "--cross-entropy-fusion-impl: has no effect without --cross-entropy-loss-fusion" \
  run --model llama2-7b --gpus 8 --tensor-model-parallel-size 2 --cross-entropy-fusion-impl te
expect_error "an unknown loss implementation (simtrain's own options)" \
  "--cross-entropy-fusion-impl: unknown implementation 'triton' (native, te)" \
  run --model llama2-7b --gpus 8 --tp 2 --cross-entropy-loss-fusion --cross-entropy-fusion-impl triton

expect_error "a Megatron name and its alias disagree" "--tensor-model-parallel-size 8 and --tp 4 disagree" \
  run --model gpt3-175b --gpus 64 --tensor-model-parallel-size 8 --tp 4
expect_error "a data-parallel option with a large-model plan" "--batch-per-gpu: applies to data-parallel runs" \
  run --model gpt3-175b --gpus 64 --tp 8 --batch-per-gpu 4
expect_error "the same through Megatron's names" "--grad-accum: applies to data-parallel runs" \
  run --model gpt3-175b --gpus 64 --tensor-model-parallel-size 8 --grad-accum 4
expect_error "an argument without its value" "--micro-batch-size: expects a value" \
  run --model gpt3-175b --gpus 64 --micro-batch-size --tp 8
# Block recomputation of the first 2 of each stage's 12 layers: slower than none, faster than all 12, and
# said in the plan's line and the Result.
block=(run --model gpt3-175b --gpus 64 --tensor-model-parallel-size 8 --pipeline-model-parallel-size 8
  --global-batch-size 64 --omit-wall-time)
"$simtrain" "${block[@]}" --json "$work/none.json" >/dev/null
"$simtrain" "${block[@]}" --recompute-granularity full --recompute-method block --recompute-num-layers 2 \
  --json "$work/block.json" >"$work/block.txt"
"$simtrain" "${block[@]}" --recompute-granularity full --recompute-method block --recompute-num-layers 12 \
  --json "$work/all.json" >/dev/null
check "block recomputation of 2 of 12 layers is named in the plan's line" \
  grep -q "recompute-full(first 2/chunk)" "$work/block.txt"
check "it costs more than none and less than all 12 layers" python3 -c '
import json, sys
none, block, full = (json.load(open(f))["iteration_time_s"] for f in sys.argv[1:])
assert none < block < full, (none, block, full)' "$work/none.json" "$work/block.json" "$work/all.json"
# --moe-layer-freq as Megatron evaluates it: every layer, every other one from layer 0, or a list expression
# with one MoE layer in four; fewer MoE layers, less expert-parallel work.
moe=(run --gpus 8 --platform dgx-h100 --num-layers 8 --hidden-size 2048 --num-attention-heads 16 --seq-length 4096
  --max-position-embeddings 4096 --num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 8
  --micro-batch-size 1 --global-batch-size 8 --bf16 --omit-wall-time)
"$simtrain" "${moe[@]}" --moe-layer-freq 1 --json "$work/moe_all.json" >/dev/null
"$simtrain" "${moe[@]}" --moe-layer-freq 2 --json "$work/moe_half.json" >/dev/null
"$simtrain" "${moe[@]}" --moe-layer-freq "([1]*1+[0]*3)*2" --json "$work/moe_quarter.json" >/dev/null
check "MoE on every layer, every other one and one in four: each step shorter" python3 -c 'import json, sys
t = [json.load(open(f))["iteration_time_s"] for f in sys.argv[1:]]
assert t[0] > t[1] > t[2], t' "$work/moe_all.json" "$work/moe_half.json" "$work/moe_quarter.json"
# Megatron-LM's own example line (examples/llama/train_llama3_8b_h100_fp8.sh of 2026-08, mock data, as a user
# pastes it): every argument is read or listed as without effect. --train-samples sets the steps, Megatron
# turns --sequence-parallel off at TP 1, and --fp8-param-gather keeps the weights in FP8: one byte each.
llama_example=(--use-mcore-models --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336
  --num-attention-heads 32 --group-query-attention --num-query-groups 8 --kv-channels 128 --seq-length 8192
  --max-position-embeddings 8192 --position-embedding-type rope --rotary-base 1000000 --rotary-percent 1.0
  --attention-dropout 0.0 --hidden-dropout 0.0 --swiglu --normalization RMSNorm --init-method-std 0.0134
  --attention-backend fused --apply-layernorm-1p --untie-embeddings-and-output-weights --disable-bias-linear
  --micro-batch-size 1 --global-batch-size 128 --train-samples 1953125000 --lr-decay-samples 1949218748
  --lr-warmup-samples 3906252 --lr 0.00015 --min-lr 0.00001 --decoupled-lr 5.0e-4 --decoupled-min-lr 4.5e-5
  --lr-decay-style cosine --clip-grad 1.0 --weight-decay 0.1 --adam-beta1 0.9 --adam-beta2 0.95 --bf16
  --grad-reduce-in-bf16 --cross-entropy-loss-fusion --calculate-per-token-loss --manual-gc
  --empty-unused-memory-level 1 --exit-duration-in-mins 235 --fp8-format hybrid --fp8-amax-history-len 1024
  --fp8-amax-compute-algo max --fp8-param-gather --tensor-model-parallel-size 1 --context-parallel-size 1
  --sequence-parallel --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather --mock-data
  --tokenizer-type NullTokenizer --vocab-size 128256 --data-cache-path cache --tiktoken-pattern v2
  --split 99,1,0 --no-create-attention-mask-in-dataloader --no-mmap-bin-files --num-workers 1
  --log-interval 1 --eval-iters 32 --eval-interval 100 --save-interval 1000 --log-throughput --profile
  --profile-step-start 4 --profile-step-end 6 --ckpt-format torch_dist --distributed-timeout-minutes 60
  --save checkpoints --load checkpoints --tensorboard-dir logs)
"$simtrain" run --gpus 8 --platform dgx-h100 "${llama_example[@]}" --json "$work/llama_example.json" \
  --omit-wall-time >/dev/null 2>"$work/llama_example.txt"
check "Megatron-LM's Llama-3 8B FP8 example line runs, its schedule and logging listed as without effect" \
  grep -q "do not change a step's time: .*--manual-gc .*--profile --profile-step-start" "$work/llama_example.txt"
check "... with its steps from --train-samples, and its weights in FP8" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["steps"] == 1953125000 // 128, r["steps"]
w = r["inputs"]["workload"]
assert w["fp8_param_gather"] and not w["parallel"]["sp"], w
assert abs(r["memory_breakdown_bytes"]["weights"] - 8.03e9) < 0.01e9, r["memory_breakdown_bytes"]' \
  "$work/llama_example.json"
expect_error "Megatron's prerequisites of a parameter-gather overlap" \
  "--overlap-param-gather: needs --use-distributed-optimizer and --overlap-grad-reduce" \
  run --model gpt3-175b --gpus 64 --tensor-model-parallel-size 8 --use-distributed-optimizer --overlap-param-gather
# --pipeline-model-parallel-layout fixes the virtual stages and each stage's layers: Megatron-Core's DeepSeek-V3
# example on PP 8 is 32 stages (VP 4), the same run as simtrain's --pp-layers with 32 counts.
layout_counts="3$(printf ',2%.0s' {1..29}),0,0"
"$simtrain" run --model deepseek-v3 --gpus 256 --platform dgx-h100 --pipeline-model-parallel-size 8 \
  --expert-model-parallel-size 32 --micro-batch-size 1 --global-batch-size 256 --seq-length 1024 \
  --pipeline-model-parallel-layout 'Et*3|(tt|)*29,m|L' --allow-oom --json "$work/layout.json" \
  --omit-wall-time >/dev/null 2>&1
"$simtrain" run --model deepseek-v3 --gpus 256 --platform dgx-h100 --pp 8 --vpp 4 --ep 32 --micro-batch 1 \
  --global-batch 256 --seq-len 1024 --pp-layers "$layout_counts" --allow-oom --no-overlap-grad-reduce \
  --json "$work/layout_own.json" --omit-wall-time >/dev/null 2>&1
check "a pipeline layout string is --vpp and --pp-layers per virtual stage" \
  test -s "$work/layout.json" -a "$(time_of "$work/layout.json")" = "$(time_of "$work/layout_own.json")"
expect_error "a layout whose stages do not fill the pipeline ranks" \
  "--pipeline-model-parallel-layout Ett|tt|ttL: 3 stages are not a multiple of --pipeline-model-parallel-size 2" \
  run --model llama2-7b --gpus 16 --pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'Ett|tt|ttL'
expect_error "shapes that do not divide" "--num-attention-heads 7: does not divide --hidden-size 1024" \
  run --gpus 8 --num-layers 2 --hidden-size 1024 --num-attention-heads 7 --seq-length 128

finish

#!/usr/bin/env bash
# Bad input of every kind ends with one clear line naming the file, field or option, and exit status 2; a
# well-formed plan that cannot run (it does not divide, or does not fit in memory) exits 4.
source "$(dirname "$0")/lib.bash"

expect_error "unknown model" "unknown model 'resnet51'" run --model resnet51
expect_error "zero GPUs" "--gpus" run --gpus 0
expect_error "zero batch" "--batch-per-gpu" run --batch-per-gpu 0
expect_infeasible "GPUs not divisible by GPUs per node" "not a multiple of the 8 GPUs per node" run --gpus 12
expect_infeasible "batch that does not fit" "does not fit in GPU memory" run --model bert-large --gpus 1 \
  --platform dgx-1-v100 --batch-per-gpu 512 --seq-len 512
expect_infeasible "a data-parallel run that does not fit names its levers" "lower --batch-per-gpu and raise --grad-accum" \
  run --model bert-large --gpus 1 --platform dgx-1-v100 --batch-per-gpu 512 --seq-len 512
expect_infeasible "a large-model plan that does not fit names its levers" "(--recompute selective|full), add pipeline stages (--pp)" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 1 --micro-batch 8
expect_error "recompute modules without selective recomputation" "--recompute-modules: applies to --recompute selective" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 8 --recompute-modules layernorm
expect_error "an unknown recompute module" "unknown module 'gdp_qkv'" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 8 --recompute selective --recompute-modules layernorm gdp_qkv
expect_infeasible "a recompute module the model lacks" "mla_up_proj needs a model with multi-latent attention" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 8 --recompute selective --recompute-modules mla_up_proj
expect_error "an unknown attention implementation" "--attention: unknown implementation 'fast' (flash, flash2, triton, unfused)" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 8 --attention fast
expect_error "16-bit first and last layers without FP8" "--first-last-layers-bf16: applies to FP8 or NVFP4 training" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 8 --first-last-layers-bf16
expect_infeasible "16-bit last layers beyond a pipeline rank's share" "--num-layers-at-end-in-bf16 13: must be between 0 and the layers per pipeline rank (12)" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 8 --precision fp8 --fp8-recipe mxfp8 --first-last-layers-bf16 \
  --num-layers-at-end-in-bf16 13
expect_infeasible "chunked attention under context parallelism" "chunked attention (8192-token chunks) under context parallelism is not modelled" \
  run --model llama4-scout --gpus 16 --cp 2 --ep 8 --seq-len 16384
expect_infeasible "TP that does not divide the heads" "attention heads are not divisible by 5" \
  run --model gpt3-175b --gpus 40 --tp 5
expect_infeasible "GPUs not divisible by the model-parallel group" "not divisible by --tp 8 x --pp 3" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 3
status=0
"$simtrain" rnu >/dev/null 2>&1 || status=$?
check "an unknown command exits 2 (bad input), with the usage" test "$status" -eq 2
expect_error "an option the parser refuses" "unrecognised option '--gpsu'" run --gpsu 8
expect_error "did you mean: an option" "unrecognised option '--gpsu' (did you mean '--gpus'?)" run --gpsu 8
expect_error "did you mean: a model" "unknown model 'resnt50' (did you mean 'resnet50'?)" run --model resnt50
expect_error "did you mean: a platform" "(did you mean 'dgx-h100'?)" run --platform dgx-h10
expect_error "did you mean: a profile" "(did you mean 'h100-sxm5'?)" run --profile h100-sxm
printf '[model]\nname = "m"\nlayers = 2\nhidden = 64\nheads = 4\nffn_hiden = 256\nvocab = 100\nseq_len = 16\n' >"$work/typo.toml"
expect_error "did you mean: a model file key" "model.ffn_hiden: unknown key (did you mean 'ffn_hidden'?)" run --model "$work/typo.toml"
expect_error "unknown precision" "--precision" run --precision fp64
expect_error "unknown platform" "dgx-z100" run --platform dgx-z100
expect_error "missing profile" "no-such-profile.json" run --profile "$work/no-such-profile.json"
expect_error "epochs without dataset size" "--dataset-size" run --model gpt2-xl --gpus 8 --batch-per-gpu 1 --epochs 1

printf '{"schema": "simtrain-profile", "version": 1,\n  "kind": "spec",\n  "device": {\n' >"$work/broken.json"
expect_error "profile with a syntax error names file and line" "broken.json:4" run --profile "$work/broken.json"

sed 's/bandwidth_GBps = .*/bandwidth_GBps = -5/' "$root/platforms/dgx-a100.toml" >"$work/bad-bw.toml"
expect_error "platform with a negative bandwidth names the field" "intra_node.bandwidth_GBps" run --platform "$work/bad-bw.toml"
sed 's/^gpu = "a100-sxm4-80gb"/&\ngpu_clock_mhz = 2500/' "$root/platforms/dgx-a100.toml" >"$work/overclocked.toml"
expect_infeasible "a GPU clock above the boost clock names the field" \
  "overclocked.toml: gpu_clock_mhz: 2500 MHz is above A100-SXM4-80GB's boost clock of 1410 MHz" \
  run --platform "$work/overclocked.toml"
sed 's/^gpu_power_limit_w = .*/gpu_power_limit_w = 1500/' "$root/platforms/dgx-gb200.toml" >"$work/overpowered.toml"
expect_infeasible "a power cap above the TDP names the field" \
  "overpowered.toml: gpu_power_limit_w: 1500 W is above GB200-186GB's power limit of 1200 W" \
  run --model llama3-8b --gpus 8 --platform "$work/overpowered.toml"
sed 's/^count = 8/count = 3/' "$root/platforms/dgx-h100-superpod.toml" >"$work/rails.toml"
expect_error "rails that do not divide the GPUs name the field" "rails.toml:27: nics.count: 3 NICs do not divide" \
  run --platform "$work/rails.toml"
sed 's/^sharp = true/sharp = "yes"/' "$root/platforms/dgx-h100-superpod.toml" >"$work/sharp.toml"
sharp_line=$(grep -n '^sharp = true' "$root/platforms/dgx-h100-superpod.toml" | cut -d: -f1)
expect_error "in-network reduction that is not a boolean names file, line and field" \
  "sharp.toml:$sharp_line: nics.sharp: expected true or false" run --platform "$work/sharp.toml"
sed 's/^dimensions = .*/dimensions = [4, 4, 4]\nradix = 6/' "$root/platforms/torus-h100.toml" >"$work/radix.toml"
radix_line=$(grep -n '^radix' "$work/radix.toml" | cut -d: -f1)
expect_error "an unknown topology parameter names the key" "radix.toml:$radix_line: fabric.radix: unknown key" \
  run --platform "$work/radix.toml"
sed 's/^levels = 2/levels = 2\ndimensions = [4]/' "$root/platforms/dgx-h100.toml" >"$work/mixed.toml"
expect_error "another topology's parameter names the key" "fabric.dimensions: only meaningful for topology = \"torus\"" \
  run --platform "$work/mixed.toml"
sed 's/^link_bandwidth_Gbps = .*/link_bandwidth_Gbps = 0/' "$root/platforms/dragonfly-a100.toml" >"$work/zero.toml"
zero_line=$(grep -n '^link_bandwidth_Gbps' "$work/zero.toml" | cut -d: -f1)
expect_error "a zero link bandwidth names the field" \
  "zero.toml:$zero_line: fabric.link_bandwidth_Gbps: must be positive" \
  run --platform "$work/zero.toml"
sed 's/^host_bridge_GBps = .*/host_bridge_GBps = nan/' "$root/platforms/pcie-p100.toml" >"$work/nan.toml"
nan_line=$(grep -n '^host_bridge_GBps' "$work/nan.toml" | cut -d: -f1)
expect_error "a non-finite bridge bandwidth names the field" \
  "nan.toml:$nan_line: intra_node.host_bridge_GBps: must be a finite" \
  run --platform "$work/nan.toml"
sed 's/^groups = 8/groups = 9/' "$root/platforms/dragonfly-a100.toml" >"$work/groups.toml"
groups_line=$(grep -n '^groups' "$work/groups.toml" | cut -d: -f1)
expect_error "a dragonfly with more groups than routers per chassis" \
  "groups.toml:$groups_line: fabric.groups: 9 groups need" \
  run --platform "$work/groups.toml"
dimensions_line=$(grep -n '^dimensions' "$root/platforms/torus-h100.toml" | cut -d: -f1)
expect_error "more nodes than the torus holds name its shape" \
  "torus-h100.toml:$dimensions_line: fabric.dimensions: 65 nodes do not fit" \
  run --platform torus-h100 --nodes 65 --gpus 520
printf 'name = "x"\nnodes = 1\ngpus_per_node = [\n' >"$work/syntax.toml"
expect_error "platform with a syntax error names file and line" "syntax.toml:" run --platform "$work/syntax.toml"

printf '{"schema": "simtrain-trace", "version": 1, "world_size": 2,\n' >"$work/truncated.json"
expect_error "truncated trace names the file" "truncated.json" run --trace "$work/truncated.json"
printf 'not gzip at all' | gzip -c | head -c 10 >"$work/cut.json.gz"
expect_error "cut gzip trace names the file" "cut.json.gz" run --trace "$work/cut.json.gz"
expect_error "trace and model together" "not both" run --trace "$root/traces/sample-ddp-2rank.json" --model resnet50
expect_error "unknown framework" "--framework: unknown framework 'horovod'" run --framework horovod
expect_error "framework with a model-parallel plan" "--framework: applies to data-parallel runs" \
  run --model gpt3-175b --gpus 64 --tp 8 --framework ray-train
expect_error "negative start-up" "--startup-s" run --startup-s -1 --steps 10
expect_error "negative jitter" "--jitter-kernel: must be a finite number in [0, 1], got -0.1" run --seed 3 --jitter-kernel -0.1

# Numbers that are not numbers, and sizes beyond what one process can simulate (common/input_limits.h): refused
# before anything is built, where they used to abort SimGrid ("duration is not finite"), print "nan days" or
# allocate without bound.
expect_error "NaN kernel jitter" "--jitter-kernel: must be a finite number in [0, 1], got nan" run --seed 1 --jitter-kernel nan
expect_error "huge kernel jitter" "--jitter-kernel: must be a finite number in [0, 1], got 1e+308" run --seed 1 --jitter-kernel 1e308
expect_error "infinite run jitter" "--jitter-run: must be a finite number in [0, 1], got inf" run --seed 1 --jitter-run inf
expect_error "infinite straggler" "--straggler: slowdown must be a finite number in [0.001, 1000], got inf" \
  run --straggler rank=1,slowdown=inf
expect_error "NaN link factor" "--degrade: factor must be a finite number in [0.001, 1000], got nan" \
  run --degrade link=node0-uplink,factor=nan
expect_error "NaN start-up" "--startup-s: must be a finite number >= 0, got nan" run --startup-s nan --steps 10
expect_error "NaN step overhead" "--step-overhead: must be a finite number in [0, 100], got nan" run --step-overhead nan --steps 3
expect_error "infinite steps" "--steps: must be a finite number > 0, got inf" run --steps inf
expect_error "a hundred million nodes" "--nodes: must be at most 1048576, got 1e+08" run --nodes 100000000
expect_error "2^31-1 GPUs" "--gpus: must be at most 1048576, got 2147483647" run --gpus 2147483647
expect_error "2^31-1 micro-steps" "--grad-accum: must be at most 65536, got 2147483647" \
  run --grad-accum 2147483647
expect_error "micro-steps beyond the kernels one process holds" "kernels per GPU and step; at most 16777216" \
  run --grad-accum 65536
expect_error "micro-batches beyond the kernels one process holds" "kernels per GPU and step; at most 16777216" \
  run --model gpt3-175b --tp 8 --gpus 64 --global-batch 524288 --allow-oom --simulate-every-micro-batch
# Extrapolated from steps of 4 and 6 micro-batches (run/micro_batch_extrapolation.h), the same step needs no
# more kernels than those.
check "as many micro-batches extrapolated" "$simtrain" run --model gpt3-175b --tp 8 --gpus 64 \
  --global-batch 524288 --allow-oom --json "$work/extrapolated.json"
expect_error "a trace that run would refuse is not written" "--gpus: must be at most 1048576, got 16777217" \
  trace --gpus 16777217 -o "$work/huge.json"
check "no trace written for a refused size" test ! -e "$work/huge.json"
expect_error "collective sweep over 2^31-1 GPUs" "--gpus: must be at most 1048576, got 2147483647" \
  collective all_reduce --gpus 2147483647 -b 8 -e 8

expect_error "an endless input file" "/dev/zero: cannot read: larger than 1024 MiB" run --trace /dev/zero

# A measured duration of 1e308 s (or one a straggler pushes past the double range) would abort SimGrid.
sed 's/"shape": \[64, 8192, 8192\]}/"shape": [64, 8192, 8192], "duration_s": 1e308}/' \
  "$root/traces/sample-ddp-2rank.json" >"$work/forever.json"
expect_error "a 1e308 s kernel names the op" "programs[0].ops[0] (fc1.fwd): its duration" \
  run --trace "$work/forever.json" --platform dgx-a100

# A peer offset of INT32_MAX wraps around the communicator (it used to overflow a signed int): odd, so each
# rank's partner is the other one, and the exchange ends.
cat >"$work/far-peer.json" <<'JSON'
{"schema": "simtrain-trace", "version": 1, "world_size": 2,
 "metadata": {"model": "p2p", "generator": "hand-written", "parallelism": "pp", "samples_per_iteration": 1,
              "tokens_per_iteration": 0, "model_flops_per_iteration": 0, "peak_memory_bytes": 0,
              "compute_dtype": "fp32"},
 "groups": [{"name": "pp", "communicators": [[0, 1]]}],
 "programs": [{"name": "stage", "streams": ["send", "recv"], "ops": [
   {"name": "send", "type": "send", "stream": 0, "deps": [], "group": 0, "peer_offset": 2147483647,
    "bytes": 1048576, "tag": 0},
   {"name": "recv", "type": "recv", "stream": 1, "deps": [], "group": 0, "peer_offset": 2147483647,
    "bytes": 1048576, "tag": 0}]}],
 "rank_programs": [{"program": 0, "ranks": [[0, 1]]}]}
JSON
check "a peer offset of INT32_MAX wraps around" \
  bash -c '"$0" run --trace "$1" --platform dgx-a100 >/dev/null' "$simtrain" "$work/far-peer.json"

# --impl and --host (issue 14): an unknown implementation, one the model lacks, a malformed host profile.
expect_error "unknown implementation" "--impl: unknown implementation 'pytorch-lightning'" \
  run --model gpt2-xl --gpus 1 --batch-per-gpu 4 --impl pytorch-lightning
expect_error "implementation the model lacks" "--impl: megatron is not available for resnet50 (available: torchvision)" \
  run --model resnet50 --gpus 1 --impl megatron
printf '{"schema": "simtrain-host", "version": 1, "name": "x", "dispatch_per_kernel_s": -3e-5}\n' >"$work/host.json"
expect_error "host profile with a negative dispatch cost names the field" "host.json: dispatch_per_kernel_s" \
  run --model resnet50 --gpus 1 --batch-per-gpu 32 --host "$work/host.json"
printf '{"schema": "simtrain-host", "version": 1, "name": "x", "launch_s": 3e-5}\n' >"$work/host2.json"
expect_error "host profile with an unknown field names it" "host2.json: launch_s: unknown key" \
  run --model resnet50 --gpus 1 --batch-per-gpu 32 --host "$work/host2.json"
expect_error "a Megatron step reads the host profile with the same checks" "host.json: dispatch_per_kernel_s" \
  run --model llama3-8b --gpus 8 --tp 2 --host "$work/host.json"
expect_error "a host overhead without a host profile" "--host-overhead: needs --host" \
  run --model llama3-8b --gpus 8 --tp 2 --host-overhead 2
expect_error "a host overhead that is not positive" "--host-overhead: must be in (0, 100]" \
  run --model llama3-8b --gpus 8 --tp 2 --host "$root/calibration/hosts/h200-run-a.json" --host-overhead 0
expect_error "a schedule cost per pass without a host profile" "--host-pass-overhead: needs --host" \
  run --model llama3-8b --gpus 8 --pp 2 --host-pass-overhead 50
expect_error "a schedule cost per pass out of range" "--host-pass-overhead: must be in [0, 10000]" \
  run --model llama3-8b --gpus 8 --pp 2 --host "$root/calibration/hosts/h200-run-a.json" --host-pass-overhead 20000
expect_error "a MoE layer's host cost without a host profile" "--host-moe-layer-overhead: needs --host" \
  run --model qwen3-30b-a3b --gpus 8 --ep 8 --host-moe-layer-overhead 10
expect_error "a MoE layer's host cost out of range" "--host-moe-layer-overhead: must be in [0, 10000]" \
  run --model qwen3-30b-a3b --gpus 8 --ep 8 --host "$root/calibration/hosts/h200-run-a.json" --host-moe-layer-overhead -1
expect_error "padding to capacity without a capacity" "--moe-pad-expert-input-to-capacity: needs --moe-expert-capacity-factor" \
  run --model qwen3-30b-a3b --gpus 8 --ep 8 --moe-pad-expert-input-to-capacity
expect_error "a capacity factor out of range" "--moe-expert-capacity-factor: must be in (0, 64], got 0.000000" \
  run --model qwen3-30b-a3b --gpus 8 --ep 8 --moe-pad-expert-input-to-capacity --moe-expert-capacity-factor 0
expect_error "an unknown token dispatcher" "--moe-token-dispatcher-type: unknown dispatcher 'deepep' (alltoall, allgather, flex)" \
  run --model qwen3-30b-a3b --gpus 8 --ep 8 --moe-token-dispatcher-type deepep
expect_error "an unknown flex dispatcher backend" \
  "--moe-flex-dispatcher-backend: unknown backend 'ncclep' (deepep, hybridep)" \
  run --model qwen3-30b-a3b --gpus 8 --ep 8 --moe-token-dispatcher-type flex --moe-flex-dispatcher-backend ncclep
expect_infeasible "the combined 1F1B with the all-gather dispatcher" \
  "--overlap-moe-expert-parallel-comm: needs the alltoall or flex token dispatcher, not allgather" \
  run --model qwen3-30b-a3b --gpus 8 --ep 8 --moe-token-dispatcher-type allgather --overlap-moe-expert-parallel-comm
expect_error "more multi-token-prediction modules than the bound" "--mtp-layers: must be 0 to 16, got 17" \
  run --model deepseek-v3 --gpus 8 --ep 8 --mtp-layers 17

expect_infeasible "NVFP4 needs Blackwell" "--precision nvfp4: H100-SXM5-80GB has no FP4 tensor cores (NVFP4 needs Blackwell)" \
  run --model llama3-8b --gpus 8 --platform dgx-h100 --precision nvfp4
expect_infeasible "MXFP8 needs Blackwell" "--fp8-recipe mxfp8: H100-SXM5-80GB has no block-scaled tensor cores" \
  run --model llama3-8b --gpus 8 --platform dgx-h100 --precision fp8 --fp8-recipe mxfp8
expect_infeasible "FP8 needs Hopper" "--precision fp8: A100-SXM4-80GB has no FP8 tensor cores" \
  run --model llama3-8b --gpus 8 --platform dgx-a100 --precision fp8
expect_error "an FP8 recipe without FP8" "--fp8-recipe tensorwise: applies to FP8 training" \
  run --model llama3-8b --gpus 8 --platform dgx-h100 --fp8-recipe tensorwise

# Model families and uneven pipeline splits (issue 16): impossible splits name the option; bad model-file
# fields name the file and field.
expect_infeasible "first-stage layers that leave an uneven rest" \
  "--pp-first-layers 6: the other 26 layers do not split evenly over 3 pipeline stages" \
  run --model llama3-8b --gpus 32 --pp 4 --pp-first-layers 6
expect_infeasible "an uneven split without pipeline stages" "--pp-last-layers 2: an uneven pipeline split needs --pp > 1" \
  run --model llama3-8b --gpus 8 --tp 8 --pp-last-layers 2
expect_error "a negative first-stage layer count" "--pp-first-layers: must not be negative, got -1" \
  run --model llama3-8b --gpus 32 --pp 4 --pp-first-layers -1
expect_error "an explicit split that is not a list of counts" "--pp-layers 4,x: expected comma-separated layer counts" \
  run --model llama3-8b --gpus 16 --pp 2 --pp-layers 4,x
expect_infeasible "an explicit split that misses layers" "--pp-layers 16,8: 24 layers in all, the model has 32" \
  run --model llama3-8b --gpus 16 --pp 2 --pp-layers 16,8
expect_infeasible "a split of every virtual stage that misses layers" \
  "--pp-layers 8,8,8,4: 28 layers in all, the model has 32" \
  run --model llama3-8b --gpus 16 --pp 2 --vpp 2 --pp-layers 8,8,8,4
expect_infeasible "126 layers on 64 virtual stages without the embedding and loss counted" \
  "--pp 8 --vpp 8: 126 layers are not divisible by pp x vpp = 64" \
  run --model llama3.1-405b --gpus 512 --tp 8 --pp 8 --vpp 8
expect_error "Megatron's window size must be a left window" "--window-size (128,5): expected a left window" \
  run --platform dgx-h100 --gpus 8 --num-layers 2 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 \
  --window-size "(128,5)"
expect_error "MLA ranks without --multi-latent-attention" "--kv-lora-rank: give --multi-latent-attention with it" \
  run --platform dgx-h100 --gpus 8 --num-layers 2 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 \
  --kv-lora-rank 64
printf '[model]\nname = "m"\nlayers = 2\nhidden = 64\nheads = 4\nffn_hidden = 256\nvocab = 100\nseq_len = 16\nwindow_size = -4\n' >"$work/window.toml"
expect_error "a negative window names file and field" "window.toml:9: model.window_size: must be positive, got -4" \
  run --model "$work/window.toml"
printf '[model]\nname = "m"\nlayers = 2\nhidden = 64\nheads = 4\nffn_hidden = 256\nvocab = 100\nseq_len = 16\n[mla]\nkv_lora_rank = 0\n' >"$work/mla.toml"
expect_error "a zero latent rank names file and field" "mla.toml:10: mla.kv_lora_rank: must be positive, got 0" \
  run --model "$work/mla.toml"

finish

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
expect_infeasible "TP that does not divide the heads" "attention heads are not divisible by 5" \
  run --model gpt3-175b --gpus 40 --tp 5
expect_infeasible "GPUs not divisible by the model-parallel group" "not divisible by --tp 8 x --pp 3" \
  run --model gpt3-175b --gpus 64 --tp 8 --pp 3
status=0
"$simtrain" rnu >/dev/null 2>&1 || status=$?
check "an unknown command exits 2 (bad input), with the usage" test "$status" -eq 2
expect_error "an option the parser refuses" "unrecognised option '--gpsu'" run --gpsu 8
expect_error "unknown precision" "--precision" run --precision fp64
expect_error "unknown platform" "dgx-z100" run --platform dgx-z100
expect_error "missing profile" "no-such-profile.json" run --profile "$work/no-such-profile.json"
expect_error "epochs without dataset size" "--dataset-size" run --model gpt2-xl --gpus 8 --batch-per-gpu 1 --epochs 1

printf '{"schema": "simtrain-profile", "version": 1,\n  "kind": "spec",\n  "device": {\n' >"$work/broken.json"
expect_error "profile with a syntax error names file and line" "broken.json:4" run --profile "$work/broken.json"

sed 's/bandwidth_GBps = .*/bandwidth_GBps = -5/' "$root/platforms/dgx-a100.toml" >"$work/bad-bw.toml"
expect_error "platform with a negative bandwidth names the field" "intra_node.bandwidth_GBps" run --platform "$work/bad-bw.toml"
sed 's/^count = 8/count = 3/' "$root/platforms/dgx-h100-superpod.toml" >"$work/rails.toml"
expect_error "rails that do not divide the GPUs name the field" "rails.toml:27: nics.count: 3 NICs do not divide" \
  run --platform "$work/rails.toml"
sed 's/^dimensions = .*/dimensions = [4, 4, 4]\nradix = 6/' "$root/platforms/torus-h100.toml" >"$work/radix.toml"
expect_error "an unknown topology parameter names the key" "radix.toml:26: fabric.radix: unknown key" \
  run --platform "$work/radix.toml"
sed 's/^levels = 2/levels = 2\ndimensions = [4]/' "$root/platforms/dgx-h100.toml" >"$work/mixed.toml"
expect_error "another topology's parameter names the key" "fabric.dimensions: only meaningful for topology = \"torus\"" \
  run --platform "$work/mixed.toml"
sed 's/^link_bandwidth_Gbps = .*/link_bandwidth_Gbps = 0/' "$root/platforms/dragonfly-a100.toml" >"$work/zero.toml"
expect_error "a zero link bandwidth names the field" "zero.toml:34: fabric.link_bandwidth_Gbps: must be positive" \
  run --platform "$work/zero.toml"
sed 's/^host_bridge_GBps = .*/host_bridge_GBps = nan/' "$root/platforms/pcie-p100.toml" >"$work/nan.toml"
nan_line=$(grep -n '^host_bridge_GBps' "$work/nan.toml" | cut -d: -f1)
expect_error "a non-finite bridge bandwidth names the field" \
  "nan.toml:$nan_line: intra_node.host_bridge_GBps: must be a finite" \
  run --platform "$work/nan.toml"
sed 's/^groups = 8/groups = 9/' "$root/platforms/dragonfly-a100.toml" >"$work/groups.toml"
expect_error "a dragonfly with more groups than routers per chassis" "groups.toml:27: fabric.groups: 9 groups need" \
  run --platform "$work/groups.toml"
expect_error "more nodes than the torus holds name its shape" "torus-h100.toml:25: fabric.dimensions: 65 nodes do not fit" \
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
expect_error "negative jitter" "must not be negative" run --seed 3 --jitter-kernel -0.1

finish

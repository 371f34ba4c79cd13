#!/usr/bin/env bash
# The rail-optimized, dragonfly, torus and PCIe-tree platforms run end to end, and their links can be
# degraded by name: one rail's NIC, one torus link, one PCIe host bridge.
source "$(dirname "$0")/lib.bash"

for p in dgx-h100-superpod dragonfly-a100 torus-h100 pcie-p100; do
  "$simtrain" run --platform "$p" --model resnet50 --gpus 64 --batch-per-gpu 64 --omit-wall-time \
    --json "$work/$p.json" >"$work/$p.txt"
  check "ResNet-50 DDP on 64 GPUs of $p" python3 - "$work/$p.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gpus"] == 64 and r["nodes"] == 8, (r["gpus"], r["nodes"])
assert r["iteration_time_s"] > r["breakdown"]["compute_s"] > 0, r
PY
done
check "platforms show describes the torus" bash -c "'$simtrain' platforms show torus-h100 | grep -q 'torus 4x4x4'"
check "platforms show says where the switches reduce" \
  bash -c "'$simtrain' platforms show dgx-h100-superpod | grep -q 'switches reducing in the network (SHARP'"
check "platforms show names the tuner plugin an AWS system loads" \
  bash -c "'$simtrain' platforms show aws-p6-b200 | grep -q 'NCCL tuner plugin aws-ofi-nccl-p6-b200'"
check "platforms show describes the PCIe tree" \
  bash -c "'$simtrain' platforms show pcie-p100 | grep -q '2 GPUs per PCIe switch'"

# BERT-Large's gradients over 4 nodes: the inter-node rings run rail by rail, so one slow NIC slows the step.
degraded() {
  "$simtrain" run --model bert-large --gpus 32 --batch-per-gpu 8 --omit-wall-time --json "$work/$1.json" \
    "${@:2}" >/dev/null
}
slower() {
  python3 - "$work/$1.json" "$work/$2.json" <<'PY'
import json, sys
base, slow = (json.load(open(path)) for path in sys.argv[1:3])
assert slow["breakdown"]["exposed_comm_s"] > 1.5 * base["breakdown"]["exposed_comm_s"], (base["breakdown"], slow["breakdown"])
PY
}
degraded rails --platform dgx-h100-superpod
degraded rails-slow --platform dgx-h100-superpod --degrade link=node2-nic3,factor=0.05
check "one rail NIC at 5% slows the rail's ring" slower rails rails-slow
degraded torus --platform torus-h100
degraded torus-slow --platform torus-h100 --degrade link=torus_link_from_1_to_2,factor=0.05
check "one torus link at 5% slows the ring through it" slower torus torus-slow
degraded pcie --platform pcie-p100 --allow-oom
degraded pcie-slow --platform pcie-p100 --allow-oom --degrade link=node1-socket0-bridge,factor=0.05
check "a PCIe host bridge at 5% slows the NIC traffic through it" slower pcie pcie-slow
finish

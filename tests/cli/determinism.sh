#!/usr/bin/env bash
# The same inputs give byte-identical results, timelines and traces.
source "$(dirname "$0")/lib.bash"

for i in 1 2; do
  "$simtrain" run --model resnet50 --gpus 16 --platform dgx-a100 --batch-per-gpu 64 --json "$work/r$i.json" \
    --omit-wall-time --timeline "$work/t$i.json" >/dev/null
  "$simtrain" trace --model bert-large --gpus 4 --batch-per-gpu 8 -o "$work/trace$i.json.gz" >/dev/null
done
# A run whose data-parallel replicas are sampled (engine/lockstep.h).
for i in 1 2; do
  "$simtrain" run --model llama2-7b --gpus 128 --platform dgx-h100 --tp 4 --pp 2 --distributed-optimizer \
    --micro-batch 1 --global-batch 64 --json "$work/sampled$i.json" --timeline "$work/sampled_t$i.json" \
    --omit-wall-time >/dev/null
done
for s in 7 7 8; do
  "$simtrain" run --model resnet50 --gpus 16 --batch-per-gpu 64 --seed $s --json "$work/seed$s.$RANDOM.json" \
    --omit-wall-time >/dev/null
done
seeded=("$work"/seed7.*.json)
check "the same --seed gives the same Result" cmp -s "${seeded[0]}" "${seeded[1]}"
check "another --seed gives another Result" bash -c "! cmp -s '${seeded[0]}' $work/seed8.*.json"
check "result JSON is byte-identical across runs" cmp -s "$work/r1.json" "$work/r2.json"
check "timeline is byte-identical across runs" cmp -s "$work/t1.json" "$work/t2.json"
check "a sampled run's result and timeline are byte-identical across runs" bash -c \
  "cmp -s $work/sampled1.json $work/sampled2.json && cmp -s $work/sampled_t1.json $work/sampled_t2.json"
check "gzip trace is byte-identical across runs" cmp -s "$work/trace1.json.gz" "$work/trace2.json.gz"
finish

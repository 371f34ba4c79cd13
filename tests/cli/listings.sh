#!/usr/bin/env bash
# The listing commands show the whole zoo, every spec profile and every shipped platform.
source "$(dirname "$0")/lib.bash"
"$simtrain" models >"$work/models.txt"
for m in lenet5 resnet50 densenet121 vit-b16 bert-large gpt2-xl llama2-7b; do
  check "models lists $m" grep -q "^$m " "$work/models.txt"
done
"$simtrain" profile list >"$work/profiles.txt"
for p in v100-sxm2-16gb p100-pcie-16gb a100-sxm4-80gb h100-sxm5 h200-sxm b200; do
  check "profile list has $p" grep -qx "$p" "$work/profiles.txt"
  check "profile show $p prints its peaks" bash -c "'$simtrain' profile show $p | grep -q 'TFLOP/s'"
done
"$simtrain" platforms >"$work/platforms.txt"
for p in dgx-1-v100 dgx-a100 dgx-h100 hgx-h200 pcie-v100 pcie-p100 dgx-h100-superpod dragonfly-a100 torus-h100 \
  aws-p4de aws-p5 aws-p5en aws-p6-b200; do
  check "platforms lists $p" grep -q "^$p " "$work/platforms.txt"
done
finish

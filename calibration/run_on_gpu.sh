#!/bin/bash
# Everything the GPU check needs, in one run on a machine with an NVIDIA GPU, CUDA, cuDNN, NCCL, CMake, ninja
# and PyTorch but none of the simulator's dependencies (DESIGN.md §6):
#   1. builds simtrain-calibrate standalone (cmake -S calibration/tool), finding cuDNN and NCCL in the CUDA
#      prefix, the system, or PyTorch's nvidia-* wheels;
#   2. times real PyTorch training steps (tools/pytorch_step_time.py) and records two Kineto traces;
#   3. runs simtrain-calibrate --quick on the models those steps train, writing
#      calibration/profiles/$SIMTRAIN_PROFILE_NAME.json (default h200-sxm, the GPU this was written for).
# Each stage has its own time limit, and a stage that fails does not stop the next one. Results and logs go
# to OUTDIR. Run from the repository root:
#   calibration/run_on_gpu.sh OUTDIR [FALLBACK_TOOL]
# FALLBACK_TOOL is a simtrain-calibrate built elsewhere, used when the build here fails.
set -u
out=${1:?usage: calibration/run_on_gpu.sh OUTDIR [FALLBACK_TOOL]}
fallback=${2:-}
# SIMTRAIN_GPU_STAGES picks stages (default both): "pytorch", "calibrate".
stages=${SIMTRAIN_GPU_STAGES:-pytorch calibrate}
mkdir -p "$out"
exec > >(tee -a "$out/run.log") 2>&1

stage() { echo; echo "=== $(date -u +%H:%M:%S) $*"; }

stage "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
nvcc --version | tail -2
cmake --version | head -1

stage "locating cuDNN and NCCL"
# PyTorch brings its own cuDNN; it must not see the library path the tool is given below.
pytorch_library_path=${LD_LIBRARY_PATH:-}
# A wheel's folder (nvidia/cudnn, nvidia/nccl) as the python3 that holds PyTorch installed it.
wheel_dir() { python3 -c "import importlib, sys; print(list(importlib.import_module('nvidia.$1').__path__)[0])" 2>/dev/null; }
first() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return; }; done; }
cuda_root=$(dirname "$(dirname "$(command -v nvcc)")")
cudnn_wheel=$(wheel_dir cudnn) nccl_wheel=$(wheel_dir nccl)
cudnn_h=$(first "$cuda_root/include/cudnn.h" /usr/include/cudnn.h /usr/include/x86_64-linux-gnu/cudnn.h \
  "$cudnn_wheel/include/cudnn.h")
cudnn_so=$(first "$cuda_root"/lib64/libcudnn.so "$cuda_root"/lib/libcudnn.so /usr/lib/x86_64-linux-gnu/libcudnn.so \
  "$cuda_root"/lib64/libcudnn.so.9 /usr/lib/x86_64-linux-gnu/libcudnn.so.9 "$cudnn_wheel/lib/libcudnn.so.9")
nccl_h=$(first "$cuda_root/include/nccl.h" /usr/include/nccl.h "$nccl_wheel/include/nccl.h")
nccl_so=$(first "$cuda_root"/lib64/libnccl.so "$cuda_root"/lib/libnccl.so /usr/lib/x86_64-linux-gnu/libnccl.so \
  "$cuda_root"/lib64/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2 "$nccl_wheel/lib/libnccl.so.2")
echo "cuda $cuda_root; cudnn $cudnn_h $cudnn_so; nccl $nccl_h $nccl_so"
# cuDNN 9 loads its sub-libraries from beside libcudnn.so.9 at run time.
for so in "$cudnn_so" "$nccl_so"; do
  [ -n "$so" ] && export LD_LIBRARY_PATH="$(dirname "$so")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
for lib in cublas curand cuda_runtime; do
  d=$(wheel_dir $lib) && [ -d "$d/lib" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d/lib"
done

stage "building simtrain-calibrate"
tool=build-cal/simtrain-calibrate
rm -rf build-cal  # a binary of an earlier build must not pass for this one
timeout 120 sh -c "cmake -S calibration/tool -B build-cal -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCUDNN_INCLUDE_DIR='$(dirname "$cudnn_h")' -DCUDNN_LIBRARY='$cudnn_so' \
  -DNCCL_INCLUDE_DIR='$(dirname "$nccl_h")' -DNCCL_LIBRARY='$nccl_so' >/dev/null && ninja -C build-cal | tail -3"
if [ ! -x "$tool" ]; then
  echo "build failed; falling back to '$fallback'"
  tool=$fallback
fi

if [[ " $stages " == *" pytorch "* ]]; then
stage "PyTorch training steps"
LD_LIBRARY_PATH=$pytorch_library_path PYTHONUNBUFFERED=1 timeout 150 python3 tools/pytorch_step_time.py -o "$out/pytorch_steps.json" \
  --trace-dir "$out" || echo "pytorch_step_time.py ended with status $?"
fi

if [[ " $stages " == *" calibrate "* ]]; then
stage "simtrain-calibrate --quick"
# The models the PyTorch steps train, at their batches, plus the generic GEMM grid and the other built-in
# transformers; fp32 is left to the full run (PyTorch runs fp32 convolutions as TF32 by default).
profile=calibration/profiles/${SIMTRAIN_PROFILE_NAME:-h200-sxm}.json
mkdir -p calibration/profiles
timeout 300 "$tool" --quick --grid --model resnet50:128,256 --model llama2-7b:1 --model bert-large \
  --model gpt2-xl --dtypes tf32,fp16,bf16,fp8 -o "$profile"
echo "simtrain-calibrate ended with status $?"
for f in "$profile" "$profile.partial"; do [ -f "$f" ] && cp "$f" "$out/"; done
fi
stage "done"

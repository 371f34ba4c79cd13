#!/usr/bin/env bash
# Results that record themselves: the schema and simtrain's version, every input with content hashes, JSON
# alone on stdout with `--json -` (the summary then on stderr), listings as JSON.
source "$(dirname "$0")/lib.bash"

check "--version names simtrain and its version" bash -c "'$simtrain' --version | grep -Eq '^simtrain [0-9]+\.[0-9]+\.[0-9]+'"

# --json -: stdout is one JSON document that python's json.tool accepts; the summary went to stderr.
"$simtrain" run --model gpt3-175b --gpus 64 --tp 8 --pp 8 --micro-batch 1 --global-batch 64 --platform dgx-a100 \
  --json - --omit-wall-time >"$work/stdout.json" 2>"$work/stderr.txt"
check "run --json - | python3 -m json.tool" python3 -m json.tool "$work/stdout.json" /dev/null
check "the summary goes to stderr then" grep -q "iteration time" "$work/stderr.txt"
python3 - "$work/stdout.json" "$("$simtrain" --version | cut -d' ' -f2)" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "simtrain-result" and r["schema_version"] >= 2, (r["schema"], r["schema_version"])
assert r["simtrain_version"] == sys.argv[2], (r["simtrain_version"], sys.argv[2])
w = r["inputs"]["workload"]
assert w["model"] == "gpt3-175b" and w["source"] == "generated", w
p = w["parallel"]
assert (p["tp"], p["pp"], p["dp"], p["cp"], p["ep"], p["vpp"]) == (8, 8, 1, 1, 1, 1), p
assert w["micro_batch"] == 1 and w["global_batch"] == 64 and w["seq_len"] == 2048, w
plat = r["inputs"]["platform"]
assert plat["name"] == "dgx-a100" and plat["file"]["name"] == "dgx-a100.toml" and len(plat["file"]["hash"]) == 16, plat
prof = r["inputs"]["profile"]
assert prof["kind"] == "spec" and len(prof["hash"]) == 16, prof
print("ok   the Result records its schema, version, workload, platform and profile")
# Exposed communication by dimension and memory by what holds it, as Calculon reports them.
by_dim = r["breakdown"]["exposed_comm_by_dimension_s"]
assert {"tp", "pp"} <= by_dim.keys() and all(v >= 0 for v in by_dim.values()), by_dim
assert by_dim["tp"] <= r["breakdown"]["exposed_comm_s"] + 1e-9, (by_dim, r["breakdown"])
memory = r["memory_breakdown_bytes"]
assert set(memory) == {"weights", "gradients", "optimizer_states", "activations", "communication_buffers", "workspace"}, memory
assert abs(sum(memory.values()) - r["peak_memory_bytes"]) <= 1e-6 * r["peak_memory_bytes"], (memory, r["peak_memory_bytes"])
print(f"ok   exposed communication by dimension {sorted(by_dim)} and memory by what holds it, adding up to the peak")
PY

# The platform's hash follows its content: a copy under another name has the same hash, an edit another.
cp "$root/platforms/dgx-a100.toml" "$work/copy.toml"
sed 's/^nodes = .*/nodes = 3/' "$root/platforms/dgx-a100.toml" >"$work/edited.toml"
for name in copy edited; do
  "$simtrain" run --gpus 8 --platform "$work/$name.toml" --json "$work/$name.json" --omit-wall-time >/dev/null
done
python3 - "$work/stdout.json" "$work/copy.json" "$work/edited.json" <<'PY' || failures=$((failures + 1))
import json, sys
shipped, copy, edited = (json.load(open(p))["inputs"]["platform"]["file"]["hash"] for p in sys.argv[1:])
assert shipped == copy != edited, (shipped, copy, edited)
print("ok   the platform hash is the content's")
PY

# A timeline to stdout is a Trace Event Format document; both documents at once cannot share stdout.
"$simtrain" run --gpus 8 --timeline - >"$work/timeline.json" 2>/dev/null
check "run --timeline - writes the timeline alone to stdout" python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["traceEvents"]' "$work/timeline.json"
expect_error "--json - and --timeline - together" "only one of them can go to stdout" run --gpus 8 --json - --timeline -

"$simtrain" models --json >"$work/models.json"
"$simtrain" platforms --json >"$work/platforms.json"
python3 - "$work/models.json" "$work/platforms.json" <<'PY' || failures=$((failures + 1))
import json, sys
models, platforms = (json.load(open(p)) for p in sys.argv[1:])
names = {m["name"] for m in models}
assert {"resnet50", "gpt3-175b", "llama2-7b"} <= names, names
assert all(m["parameters"] > 0 for m in models)
assert {"dgx-a100", "dgx-h100"} <= {p["name"] for p in platforms}
assert all(p["gpus_per_node"] >= 1 for p in platforms)
print(f"ok   models --json ({len(models)}) and platforms --json ({len(platforms)})")
PY
expect_error "platforms show with --json" "--json goes with 'list'" platforms show dgx-a100 --json

finish

#!/bin/sh
# bench/msm-warp-model.py: its constants are cuda/msm.cuh's (the model
# restates them), its pass table agrees with the one test_cuda_math pins
# (2^26: 7 windows a pass, 2^27: 4), and on every case the flat loops keep
# at least as many lanes busy as the nested ones, the bucket accumulation's
# all of them.
# Usage: msm-warp-model-check.sh REPO_ROOT
set -u
root=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
python3 "$root/bench/msm-warp-model.py" --warps 16 --min-log 24 --max-log 27 >"$out" || {
	echo "FAIL: msm-warp-model.py exited $?"
	exit 1
}
python3 - "$root" "$out" <<'PY'
import importlib.util, json, re, sys
sys.dont_write_bytecode = True  # nothing written into the source tree
root, out = sys.argv[1], sys.argv[2]
header = open(root + "/cuda/msm.cuh").read()
bad = []
spec = importlib.util.spec_from_file_location("model", root + "/bench/msm-warp-model.py")
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)
for name in ("CHUNK_MIN", "CHUNK_MAX", "CHUNK_THREADS", "PASS_BYTES", "ONES_MAX_THREADS",
             "ONES_MIN_WORDS", "SEG", "MIN_WINDOW", "MAX_WINDOW"):
    h = re.search(r"#define MSM_%s (.+)" % name, header)
    if not h:
        bad.append("no MSM_%s in cuda/msm.cuh" % name)
    elif eval(h.group(1).replace("(size_t)", "")) != getattr(model, name):
        bad.append("MSM_%s is %s, the model's %s" % (name, h.group(1), getattr(model, name)))
rows = [json.loads(l) for l in open(out)]
passes = {r["log_n"]: r["pass_windows"] for r in rows if r["loop"] == "acc_chunk"}
if passes.get(26) != 7 or passes.get(27) != 4:
    bad.append("pass windows %r, want 7 at 2^26 and 4 at 2^27" % passes)
for r in rows:
    if not 0 < r["nested_busy"] <= r["flat_busy"] <= 1:
        bad.append(r)
    if r["loop"] == "acc_chunk" and r["flat_busy"] != 1.0:
        bad.append(r)
if len(rows) != 4 + 6:
    bad.append("%d rows, want 10" % len(rows))
if bad:
    print("FAIL:", bad)
    sys.exit(1)
print("ok: %d cases" % len(rows))
PY

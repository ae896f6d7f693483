#!/bin/sh
# bench/ptx-figures.sh where nvcc exists (77, skipped, elsewhere): its JSON
# must parse and hold every kernel of cuda/ with a register count above
# zero and spill figures (the G2 MSM's cuda/msm_g2.cu among them), and
# the nine arithmetic device functions with non-zero PTX instruction and
# multiply counts, the NTT stage's access probe with non-zero instructions.
# a b - c d (fe_mul_sub) must take
# fewer multiplies than its two products would (one reduction for both).
# Usage: ptx-figures-check.sh REPO_ROOT
set -u
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$1/bench/ptx-figures.sh" >"$out"
rc=$?
[ "$rc" -eq 77 ] && exit 77
if [ "$rc" -ne 0 ]; then
	echo "FAIL: ptx-figures.sh exited $rc"
	exit 1
fi
python3 - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ks = d["kernels"]
names = " ".join(k["name"] for k in ks)
bad = [k["name"] for k in ks if not (k["registers"] > 0 and "spill_store_bytes" in k
                                     and "spill_load_bytes" in k)]
for want in ("k_group", "k_acc_chunk", "k_reduce", "k_ones", "k_h_pointwise"):
    if want not in names:
        bad.append("no kernel " + want)
if not any(k["file"] == "cuda/msm_g2.cu" and "k_acc_chunk" in k["name"] for k in ks):
    bad.append("no G2 kernel from cuda/msm_g2.cu")
f = d["device_functions"]
for key in ("fr_mul", "fp_mul", "fp_sqr", "fp_mul_sub", "g1_madd", "fp2_mul", "fp2_mul_sub",
            "g2_madd", "ntt_butterfly"):
    p = f[key]
    if not (p["ptx_instructions"] > 0 and p["ptx_mul"] > 0):
        bad.append(key + " has a zero count")
if not f["ntt_stage_access"]["ptx_instructions"] > 0:
    bad.append("ntt_stage_access has no instructions")
# Fp, products in three halves (cuda/ff.cuh, fe_kara): 5n^2 + n multiplies
# against 2 (3.5n^2 + n) (n = 12: 732 / 1,032); Fp2, whose sums of four
# products keep the CIOS: 2 (10n^2 + n) against the 2 x 3 (3.5n^2 + n) of
# two products (2,904 / 3,096).
for key, one, most in (("fp_mul_sub", "fp_mul", 1.6), ("fp2_mul_sub", "fp2_mul", 1.9)):
    if f[key]["ptx_mul"] > most * f[one]["ptx_mul"]:
        bad.append("%s takes %d multiplies, over %.1f x %s's %d" % (
            key, f[key]["ptx_mul"], most, one, f[one]["ptx_mul"]))
if bad:
    print("FAIL:", bad)
    sys.exit(1)
print("ok: %d kernels, fr_mul %d, g1_madd %d, ntt_butterfly %d PTX instructions" % (
    len(ks), d["device_functions"]["fr_mul"]["ptx_instructions"],
    d["device_functions"]["g1_madd"]["ptx_instructions"],
    d["device_functions"]["ntt_butterfly"]["ptx_instructions"]))
PY

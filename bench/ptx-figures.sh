#!/usr/bin/env bash
# Static figures of the CUDA kernels for sm_90, to compare later changes
# with (docs/benchmarks.md, "bench/ptx-figures.sh"); needs nvcc, no GPU.
#  - per kernel of cuda/ntt.cu, cuda/msm.cu, cuda/msm_g2.cu and cuda/shim.cu: registers per
#    thread, spill store and load bytes, stack frame and static shared
#    memory, from `ptxas -v` while compiling each file to a cubin with the
#    build's flags (-O2, C++17, sm_90);
#  - PTX instruction counts of ten device functions, isolated by small
#    wrappers compiled only here (bench/ptx-probes.cu): one G1 and one G2
#    mixed addition (XYZZ + affine), one Fr, one Fp and one Fp2
#    multiplication, one Fp squaring, one a b - c d in Fp and in Fp2
#    (fe_mul_sub), one NTT butterfly, one grouped NTT stage's indexing and
#    shared accesses for a butterfly. A count is the instructions of the
#    wrapper plus every .func it calls, each once; "mul" counts the
#    integer multiply and multiply-add instructions among them;
#  - with ZKPD_SASS_BIN set to a directory holding ptxas and cuobjdump of a
#    CUDA toolkit from 11.8 on (Debian's non-free nvidia-cuda-toolkit is
#    11.8): the same ten as SASS for sm_90, counted per instruction
#    (NOPs left out), IMAD and MOV apart, with registers. That ptxas
#    assembles this nvcc's PTX with its .version lowered to its own (the
#    cuobjdump of an older toolkit cannot read a newer nvcc's cubins), so
#    the code is that older ptxas's: compare counts made with one toolkit.
# Prints one JSON object on stdout. Exit 77 without nvcc, 1 when a compile
# fails or a figure is missing.
# Usage: bench/ptx-figures.sh [WORK_DIR]   (default: a temporary directory)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
	echo "ptx-figures: no nvcc" >&2
	exit 77
fi
if [ $# -gt 1 ]; then
	echo "usage: bench/ptx-figures.sh [WORK_DIR]" >&2
	exit 2
fi
if [ $# -eq 1 ]; then
	work=$1
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
flags=(-O2 -std=c++17 -arch=sm_90 -I"$root/include" -I"$root/cuda")
for f in ntt msm msm_g2 shim; do
	"$nvcc" "${flags[@]}" -cubin -Xptxas -v "$root/cuda/$f.cu" -o "$work/$f.cubin" \
		>"$work/$f.ptxas" 2>&1 || { cat "$work/$f.ptxas" >&2; exit 1; }
done
"$nvcc" "${flags[@]}" -ptx "$root/bench/ptx-probes.cu" -o "$work/probes.ptx"
version=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
sass_bin=${ZKPD_SASS_BIN:-}
if [ -n "$sass_bin" ] && { [ ! -x "$sass_bin/ptxas" ] || [ ! -x "$sass_bin/cuobjdump" ]; }; then
	echo "ptx-figures: ZKPD_SASS_BIN=$sass_bin holds no ptxas and cuobjdump" >&2
	exit 1
fi
python3 - "$work" "$version" "$sass_bin" <<'PY'
import json, os, re, subprocess, sys

work, version, sass_bin = sys.argv[1], sys.argv[2], sys.argv[3]

def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                             text=True, check=True).stdout.split("\n")
        return {n: d for n, d in zip(names, out)}
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}

# ptxas -v: "Compiling entry function 'K'", then "Function properties for
# NAME" (an entry or a .func) with its stack and spill line, and an entry's
# "Used N registers" line.
kernels, functions = [], {}
for f in ("ntt", "msm", "msm_g2", "shim"):
    entry, props = None, None
    for line in open("%s/%s.ptxas" % (work, f)):
        m = re.search(r"Compiling entry function '([^']+)' for 'sm_90'", line)
        if m:
            entry = {"file": "cuda/%s.cu" % f, "mangled": m.group(1)}
            kernels.append(entry)
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            if entry is not None and m.group(1) == entry["mangled"]:
                props = entry
            else:
                props = functions.setdefault(m.group(1), {"file": "cuda/%s.cu" % f,
                                                          "mangled": m.group(1)})
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                      line)
        if m and props is not None:
            props["stack_bytes"], props["spill_store_bytes"], props["spill_load_bytes"] = map(
                int, m.groups())
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and entry is not None:
            entry["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            entry["smem_bytes"] = int(s.group(1)) if s else 0
            entry = None
functions = list(functions.values())
names = demangle([k["mangled"] for k in kernels + functions])
for k in kernels + functions:
    k["name"] = names[k.pop("mangled")]

# PTX: function bodies, their instructions and calls.
text = open(work + "/probes.ptx").read()
funcs, cur, depth, calling = {}, None, 0, False
for line in text.split("\n"):
    s = line.strip()
    if calling and s:
        # "call.uni" puts its callee on the next line
        cur["calls"].add(s.rstrip(",").split()[0])
        calling = False
    m = re.match(r"(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", s)
    if m and depth == 0:
        cur = funcs.setdefault(m.group(1), {"insns": 0, "mul": 0, "calls": set()})
        continue
    if cur is None:
        continue
    depth += s.count("{") - s.count("}")
    if depth == 0 and s.startswith("}"):
        cur = None
        continue
    op = re.sub(r"^@!?%\w+\s+", "", s).split()[0] if s else ""
    if op.startswith("call"):
        cur["insns"] += 1
        c = re.match(r"call(?:\.uni)?\s+(?:\([^)]*\),\s*)?([\w$]+)", s)
        if c:
            cur["calls"].add(c.group(1))
        else:
            calling = True
        continue
    if not s.endswith(";") or s.startswith((".", ")", "(")):
        continue
    cur["insns"] += 1
    if op.startswith(("mul.", "mad.", "madc.")):
        cur["mul"] += 1

def closure(name):
    seen, todo = [], [name]
    while todo:
        n = todo.pop()
        if n in seen or n not in funcs:
            continue
        seen.append(n)
        todo.extend(sorted(funcs[n]["calls"]))
    return seen

probes = {}
probe_list = (
    ("fr_mul", "probe_fr_mul", "fe_mul<fr_params>, one Fr Montgomery multiplication"),
    ("fp_mul", "probe_fp_mul", "fe_mul<fp_params>, one Fp Montgomery multiplication"),
    ("fp_sqr", "probe_fp_sqr", "fe_sqr<fp_params>, one Fp Montgomery squaring"),
    ("fp_mul_sub", "probe_fp_mul_sub", "fe_mul_sub<fp_params>, a b - c d in Fp with one reduction"),
    ("g1_madd", "probe_g1_madd", "xyzz_add_affine over Fp, one G1 mixed addition XYZZ + affine"),
    ("fp2_mul", "probe_fp2_mul", "fe_mul over Fp2, one Fp2 multiplication (3 Fp ones)"),
    ("fp2_mul_sub", "probe_fp2_mul_sub", "fe_mul_sub over Fp2, a b - c d (two sums of four Fp products)"),
    ("g2_madd", "probe_g2_madd", "xyzz_add_affine over Fp2, one G2 mixed addition XYZZ + affine"),
    ("ntt_butterfly", "probe_ntt_bfly",
     "ntt_bfly_dit forward, one radix-2 butterfly with its twiddle"),
    ("ntt_stage_access", "probe_ntt_stage_access",
     "a grouped stage's indexing and shared accesses for one butterfly, besides the butterfly"))
for key, entry, what in probe_list:
    fs = closure(entry)
    names = demangle(fs)
    probes[key] = {
        "what": what,
        "ptx_instructions": sum(funcs[f]["insns"] for f in fs),
        "ptx_mul": sum(funcs[f]["mul"] for f in fs),
        "functions": {names[f]: funcs[f]["insns"] for f in fs},
    }

# SASS of the probes through another toolkit's ptxas and cuobjdump.
sass = None
if sass_bin:
    ver = subprocess.run([sass_bin + "/ptxas", "--version"], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"release (\d+)\.(\d+)", ver)
    major, minor = int(m.group(1)), int(m.group(2))
    # PTX ISA of a toolkit: 11.8 reads 7.8, 12.x 8.x, 13.x 9.x.
    isa = "7.8" if major == 11 else "%d.%d" % (major - 4, minor)
    ptx = re.sub(r"^\.version .*$", ".version " + isa, text, count=1, flags=re.M)
    open(work + "/probes-sass.ptx", "w").write(ptx)
    log = subprocess.run([sass_bin + "/ptxas", "-arch=sm_90", "-O3", "-v",
                          work + "/probes-sass.ptx", "-o", work + "/probes-sass.cubin"],
                         capture_output=True, text=True, check=True).stderr
    regs, entry = {}, None
    for line in log.split("\n"):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entry = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and entry:
            regs[entry], entry = int(m.group(1)), None
    dump = subprocess.run([sass_bin + "/cuobjdump", "-sass", work + "/probes-sass.cubin"],
                          capture_output=True, text=True, check=True).stdout
    counts, fn = {}, None
    for line in dump.split("\n"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            fn = counts.setdefault(m.group(1), {"instructions": 0, "imad": 0, "mov": 0})
            continue
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not m or fn is None or m.group(2).startswith("NOP"):
            continue
        fn["instructions"] += 1
        fn["imad"] += m.group(2).startswith(("IMAD", "IMUL"))
        fn["mov"] += m.group(2).startswith("MOV")
    sass = {"ptxas": "%d.%d" % (major, minor), "ptx_isa": isa}
    for key, entry, _ in probe_list:
        c = counts.get(entry, {"instructions": 0, "imad": 0, "mov": 0})
        probes[key]["sass"] = dict(c, registers=regs.get(entry, 0))

ok = kernels and all(k.get("registers", 0) > 0 for k in kernels) and all(
    p["ptx_instructions"] > 0 for p in probes.values())
if sass:
    ok = ok and all(p["sass"]["instructions"] > 0 for p in probes.values())
out = {"arch": "sm_90", "nvcc": version, "flags": "-O2 -std=c++17 -arch=sm_90",
       "kernels": kernels, "noinline_functions": functions, "device_functions": probes}
if sass:
    out["sass_toolkit"] = sass
json.dump(out, sys.stdout, indent=1)
print()
sys.exit(0 if ok else 1)
PY

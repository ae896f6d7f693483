#!/usr/bin/env python3
"""Warp-lane model of the device MSM's two point loops (docs/benchmarks.md,
"Convergent point loops"). Prints one JSON line per case on stdout.

A warp runs its 32 lanes in step: where lanes loop a different number of
times, the warp runs the longest and the others idle. For each loop shape
the model counts the warp's iterations and the lanes' useful ones (one
mixed addition each), over sampled inputs, and reports useful / (32 x warp
iterations), the share of lanes busy:

- bucket accumulation (k_acc_chunk), random scalars of n points: the
  window's list is cut into chunks of ch entries, one a lane, 32
  consecutive chunks a warp; bucket sizes are Poisson with mean
  n / 2^(c-1) (signed digits, 2^(c-1) buckets).
  nested: a loop over the chunk's bucket runs with an inner loop over each
  run's entries (the warp's j-th run costs the longest lane's j-th run);
  flat: one loop over the chunk's entries, every lane ch iterations.
- the 0/1 batch addition (k_ones): lane t sums the set bits of per words
  of the ones bitmap, each bit set with probability q.
  nested: a loop over words with an inner loop over each word's bits (word
  i costs the most populous lane's word i); flat: one iteration per set
  bit, so the warp runs as long as its lane with the most bits.

The sizes follow cuda/msm.cuh, restated here: msm_window, msm_windows,
msm_chunk, msm_pass_windows (its MSM_PASS_BYTES of 4 GiB, G1's 192-byte
XYZZ points) and msm_ones_threads.
Usage: bench/msm-warp-model.py [--warps W] [--seed S] [--min-log A] [--max-log B]
"""
import argparse
import json
import math
import random

# cuda/msm.cuh's MSM_ constants of the same names (ctest msm_warp_model
# compares them)
CHUNK_MIN = 32
CHUNK_MAX = 256
CHUNK_THREADS = 1 << 21
PASS_BYTES = 4 << 30
ONES_MAX_THREADS = 65536
ONES_MIN_WORDS = 4
SEG = 32
MIN_WINDOW = 8
MAX_WINDOW = 20
XYZZ = 192  # a G1 point in XYZZ coordinates, 4 Fp of 48 bytes


def window(n):
    return max(MIN_WINDOW, min(MAX_WINDOW, n.bit_length() - 1 - 6))


def windows(c):
    return (256 + c - 1) // c


def chunk(n, k):
    want = (k * n + CHUNK_THREADS - 1) // CHUNK_THREADS
    ch = CHUNK_MIN
    while ch < CHUNK_MAX and ch < want:
        ch *= 2
    return ch


def pass_bytes(cap, c, kb):
    nb = 1 << (c - 1)
    nc = (cap + chunk(cap, kb) - 1) // chunk(cap, kb)
    segs = (nb + SEG - 1) // SEG
    row = 4 * nb + 4 * (nb + 1) + 4 * cap + XYZZ * (nb + segs) + (3 * XYZZ + 4) * nc
    return kb * row


def pass_windows(cap, c):
    k = windows(c)
    for p in range(1, k):
        kb = (k + p - 1) // p
        if pass_bytes(cap, c, kb) <= PASS_BYTES:
            return kb
    return 1


def ones_threads(n):
    words = (n + 31) // 32
    p = 1
    while p < ONES_MAX_THREADS and p * 2 * ONES_MIN_WORDS <= words:
        p *= 2
    return p


def poisson(rng, lam):
    # Knuth's product of uniforms; exp(-256) is well inside a double.
    limit, k, prod = math.exp(-lam), 0, rng.random()
    while prod > limit:
        k += 1
        prod *= rng.random()
    return k


def runs_of_chunks(rng, lam, ch, lanes):
    """The bucket runs of `lanes` consecutive chunks of ch entries."""
    out, cur, left = [], [], ch
    while len(out) < lanes:
        size = poisson(rng, lam)
        while size and len(out) < lanes:
            take = min(size, left)
            cur.append(take)
            size -= take
            left -= take
            if left == 0:
                out.append(cur)
                cur, left = [], ch
    return out


def acc_case(rng, log_n, warps):
    n = 1 << log_n
    c = window(n)
    kb = pass_windows(n, c)
    ch = chunk(n, kb)
    lam = n / (1 << (c - 1))
    nested = flat = useful = 0
    for _ in range(warps):
        lanes = runs_of_chunks(rng, lam, ch, 32)
        depth = max(len(r) for r in lanes)
        nested += sum(max((r[j] if j < len(r) else 0) for r in lanes) for j in range(depth))
        flat += ch
        useful += 32 * ch
    return {"loop": "acc_chunk", "log_n": log_n, "window": c, "pass_windows": kb,
            "chunk": ch, "bucket_mean": lam,
            "nested_busy": round(useful / (32 * nested), 3),
            "flat_busy": round(useful / (32 * flat), 3)}


def ones_case(rng, log_n, q, warps):
    n = 1 << log_n
    words = (n + 31) // 32
    per = (words + ones_threads(n) - 1) // ones_threads(n)
    nested = flat = useful = 0
    for _ in range(warps):
        bits = [[sum(rng.random() < q for _ in range(32)) for _ in range(per)]
                for _ in range(32)]
        nested += sum(max(lane[i] for lane in bits) for i in range(per))
        flat += max(sum(lane) for lane in bits)
        useful += sum(sum(lane) for lane in bits)
    return {"loop": "ones", "log_n": log_n, "ones": q, "words_per_lane": per,
            "nested_busy": round(useful / (32 * nested), 3),
            "flat_busy": round(useful / (32 * flat), 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warps", type=int, default=400, help="sampled warps a case")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-log", type=int, default=20)
    ap.add_argument("--max-log", type=int, default=27)
    a = ap.parse_args()
    if not 16 <= a.min_log <= a.max_log <= 28 or a.warps < 1:
        ap.error("want 16 <= --min-log <= --max-log <= 28 and --warps >= 1")
    rng = random.Random(a.seed)
    for log_n in range(a.min_log, a.max_log + 1):
        print(json.dumps(acc_case(rng, log_n, a.warps)), flush=True)
    for log_n in (a.min_log, a.max_log):
        for q in (0.1, 0.4, 0.9):
            print(json.dumps(ones_case(rng, log_n, q, max(1, a.warps // 8))), flush=True)


if __name__ == "__main__":
    main()

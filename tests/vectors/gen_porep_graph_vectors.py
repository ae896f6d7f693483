#!/usr/bin/env python3
"""
Writes porep_graph_vectors.json: Filecoin PoRep graph parents, challenges and
replica ids, from a second implementation of rust-fil-proofs' derivations,
written in plain Python from the Rust sources (not from zkpd's C):

  rust-fil-proofs @ 87348a749d80447d00c595af834a8ed73c09e4d9
    storage-proofs-core/src/drgraph.rs          BucketGraph::parents
    storage-proofs-core/src/crypto/mod.rs       derive_porep_domain_seed
    storage-proofs-core/src/crypto/feistel.rs   precompute, permute, feistel
    storage-proofs-porep/src/stacked/vanilla/graph.rs       derive_feistel_keys,
                                                            correspondent
    storage-proofs-porep/src/stacked/vanilla/challenges.rs  all three modes
    storage-proofs-porep/src/stacked/vanilla/params.rs      generate_replica_id
    storage-proofs-porep/src/stacked/vanilla/cache.rs       parent cache layout
    storage-proofs-porep/parent_cache.json      published parent cache digests
  rust-filecoin-proofs-api @ 0e64ce8d9cf87d4039075c101de833290096745b
    src/registry.rs                             proof ids, porep_id, versions
  rust-random/rand 0.8.5 tree: rand_chacha 0.3.1 (ChaCha8Rng::from_seed: key =
    seed, 64-bit block counter and 64-bit stream both 0) and rand_core 0.6.4
    (BlockRng::next_u64: two consecutive u32 words, the first the low half).

Before writing anything it checks itself against independent published
values: RFC 8439 section 2.3.2 (ChaCha20 block), the ChaCha8 all-zero test
case of draft-strombergson-chacha-test-vectors (TC1, two blocks), the
hard-coded synthetic challenges of challenges.rs
(test_synth_challenges_against_hardcoded), and the SHA-256 of the whole
parent cache for the 2 KiB graphs of porep ids 0 and 5 from parent_cache.json
(with --full also 8 MiB, ids 1 and 6: about a minute each).

Usage: gen_porep_graph_vectors.py [--full] [OUT.json]
"""
import hashlib
import json
import math
import struct
import sys

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1

# ---------------------------------------------------------------- ChaCha


def _rotl(x, n):
    return ((x << n) | (x >> (32 - n))) & M32


def _qr(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & M32
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & M32
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & M32
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & M32
    s[b] = _rotl(s[b] ^ s[c], 7)


def chacha_block(key, w12_15, rounds):
    """One 64-byte block: key 32 bytes, words 12..15 as given."""
    init = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    init += list(struct.unpack("<8I", key)) + list(w12_15)
    s = list(init)
    for _ in range(rounds // 2):
        _qr(s, 0, 4, 8, 12)
        _qr(s, 1, 5, 9, 13)
        _qr(s, 2, 6, 10, 14)
        _qr(s, 3, 7, 11, 15)
        _qr(s, 0, 5, 10, 15)
        _qr(s, 1, 6, 11, 12)
        _qr(s, 2, 7, 8, 13)
        _qr(s, 3, 4, 9, 14)
    return struct.pack("<16I", *[(s[i] + init[i]) & M32 for i in range(16)])


class ChaCha8Rng:
    """rand_chacha 0.3 ChaCha8Rng::from_seed + rand 0.8 gen::<u64>()."""

    def __init__(self, seed):
        self.key = seed
        self.words = []
        self.block = 0

    def next_u64(self):
        # Draws are always whole u64s from a 64-word buffer, so a draw never
        # straddles a refill and the stream is simply word pairs, low first.
        while len(self.words) < 2:
            b = chacha_block(self.key, (self.block & M32, self.block >> 32, 0, 0), 8)
            self.words += list(struct.unpack("<16I", b))
            self.block += 1
        lo, hi = self.words[0], self.words[1]
        del self.words[:2]
        return lo | (hi << 32)


def chacha20_ietf(key, nonce, offset, n):
    """Keystream bytes [offset, offset + n) of the chacha20 crate's ChaCha20
    (RFC 8439: 32-bit block counter from 0, 96-bit nonce), as try_seek(offset)
    followed by apply_keystream over n zero bytes."""
    nw = struct.unpack("<3I", nonce)
    out = b""
    blk = offset // 64
    while len(out) < offset % 64 + n:
        out += chacha_block(key, (blk,) + nw, 20)
        blk += 1
    return out[offset % 64: offset % 64 + n]


# ---------------------------------------------------------------- registry

SIZES = [("2KiB", 1 << 11), ("8MiB", 1 << 23), ("512MiB", 1 << 29),
         ("32GiB", 1 << 35), ("64GiB", 1 << 36)]


def registry():
    rows = []
    for fam, suffix, api, mode in [(0, "V1", "V1_0", "interactive"),
                                   (1, "V1_1", "V1_1", "interactive"),
                                   (2, "V1_1_Feat_SyntheticPoRep", "V1_2", "synthetic"),
                                   (3, "V1_2_Feat_NonInteractivePoRep", "V1_2",
                                    "non_interactive")]:
        for i, (sz, b) in enumerate(SIZES):
            rows.append({"name": "StackedDrg%s%s" % (sz, suffix), "id": fam * 5 + i,
                         "sector_bytes": b, "api": api, "mode": mode})
    return rows


def porep_id(pid):
    return struct.pack("<QQ", pid, 0) + bytes(16)


# ---------------------------------------------------------------- graph


class Graph:
    def __init__(self, nodes, pid_bytes, api):
        self.nodes = nodes
        self.api = api
        self.seed28 = hashlib.sha256(b"Filecoin_DRSample" + pid_bytes).digest()[:28]
        raw = hashlib.sha256(b"Filecoin_Feistel" + pid_bytes).digest()
        self.keys = list(struct.unpack("<4Q", raw))
        n = nodes * 8
        next_pow4, log4 = 4, 1
        while next_pow4 < n:
            next_pow4 *= 4
            log4 += 1
        self.half_bits = log4
        self.right_mask = (1 << log4) - 1
        self.left_mask = self.right_mask << log4
        self.rtab = {}

    def drg(self, node):
        if node < 2:
            return [0] * 6
        rng = ChaCha8Rng(self.seed28 + struct.pack("<I", node))
        meta = node * 5
        n_buckets = math.ceil(math.log2(float(meta)))  # as Rust: f64 log2, ceil
        out = [0] * 6
        slots = range(0, 5) if self.api == "V1_0" else range(1, 6)
        for s in slots:
            bucket = rng.next_u64() % n_buckets + 1
            largest = min(meta, 1 << bucket)
            smallest = max(2, largest >> 1)
            dist = smallest + rng.next_u64() % (largest - smallest + 1)
            mp = (meta - dist) // 5
            out[s] = node - 1 if mp == node else mp
        out[5 if self.api == "V1_0" else 0] = node - 1
        return out

    def _f(self, right, key):
        k = (right, key)
        v = self.rtab.get(k)
        if v is None:
            h = hashlib.blake2b(struct.pack(">QQ", right, key)).digest()
            v = struct.unpack(">Q", h[:8])[0] & self.right_mask
            if len(self.rtab) < 1 << 20:
                self.rtab[k] = v
        return v

    def _encode(self, x):
        left = (x & self.left_mask) >> self.half_bits
        right = x & self.right_mask
        for key in self.keys[:3]:
            left, right = right, left ^ self._f(right, key)
        return (left << self.half_bits) | right

    def permute(self, x):
        n = self.nodes * 8
        u = self._encode(x)
        while u >= n:
            u = self._encode(u)
        return u

    def exp(self, node):
        out = []
        for i in range(8):
            t = self.permute(node * 8 + i)
            if self.api == "V1_0":
                out.append((t & M32) // 8)  # Rust: `transformed as u32 / 8`
            else:
                assert t // 8 <= M32
                out.append(t // 8)
        return out

    def cache_digest(self):
        """SHA-256 of the parent cache file: per node 6 DRG + 8 expander
        parents as u32 little-endian (cache.rs ParentCache::generate)."""
        h = hashlib.sha256()
        for v in range(self.nodes):
            h.update(struct.pack("<14I", *(self.drg(v) + self.exp(v))))
        return h.hexdigest()


def cache_name(g):
    """cache.rs cache_path: the manifest key of a graph's parent cache."""
    ident = ("stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
             "drgraph::BucketGraph{size: %d; degree: 6; hasher: poseidon_hasher} }" % g.nodes)
    h = hashlib.sha256(b"poseidon_hasher" + ident.encode() +
                       struct.pack("<4Q", *g.keys) + struct.pack("<I", g.nodes))
    return "v28-sdr-parent-" + h.hexdigest()


# ---------------------------------------------------------------- challenges


def to_challenge(b, nodes):
    return int.from_bytes(b, "little") % (nodes - 1) + 1


def interactive(nodes, per, k, replica_id, seed):
    return [to_challenge(hashlib.sha256(replica_id + seed + struct.pack("<I", per * k + i))
                         .digest(), nodes) for i in range(per)]


NI_TAG = b"filecoin.io|PoRep|1|NonInteractive|1"


def non_interactive(nodes, per, k, replica_id, comm_r):
    return [to_challenge(hashlib.sha256(NI_TAG + replica_id + comm_r +
                                        struct.pack("<I", per * k + i)).digest(), nodes)
            for i in range(per)]


NONCE = b"synth-porep\x00"


def synth_key(replica_id, comm_r):
    return hashlib.blake2b(replica_id + comm_r, digest_size=32,
                           key=b"filecoin.io|PoRep|1|Synthetic|1|Generation").digest()


def select_key(replica_id, seed):
    return hashlib.blake2b(replica_id + seed, digest_size=32,
                           key=b"filecoin.io|PoRep|1|Synthetic|1|Selection").digest()


def synth_challenge(nodes, gkey, i):
    return to_challenge(chacha20_ietf(gkey, NONCE, 32 * i, 32), nodes)


def synth_indexes(num_synth, replica_id, seed, per, k):
    ks = chacha20_ietf(select_key(replica_id, seed), NONCE, 4 * per * k, 4 * per)
    return [struct.unpack("<I", ks[4 * c: 4 * c + 4])[0] % num_synth for c in range(per)]


def synthetic(nodes, per, k, replica_id, comm_r, seed, num_synth=None):
    if num_synth is None:
        num_synth = min(nodes, 1 << 18)
    gkey = synth_key(replica_id, comm_r)
    return [synth_challenge(nodes, gkey, s)
            for s in synth_indexes(num_synth, replica_id, seed, per, k)]


def replica_id(prover_id, sector_id, ticket, comm_d, pid_bytes):
    h = bytearray(hashlib.sha256(prover_id + struct.pack(">Q", sector_id) + ticket +
                                 comm_d + pid_bytes).digest())
    h[31] &= 0x3F
    return bytes(h)


# ---------------------------------------------------------------- self-checks


def fr(v):
    return v.to_bytes(32, "little")


def self_check(full):
    # RFC 8439 2.3.2: key 00..1f, counter 1, nonce 00:00:00:09:00:00:00:4a:00:00:00:00.
    blk = chacha_block(bytes(range(32)), (1,) + struct.unpack("<3I", bytes.fromhex(
        "000000090000004a00000000")), 20)
    assert blk.hex() == (
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"), "RFC 8439 2.3.2"
    # draft-strombergson-chacha-test-vectors TC1, 8 rounds, zero key and IV.
    z = chacha_block(bytes(32), (0, 0, 0, 0), 8) + chacha_block(bytes(32), (1, 0, 0, 0), 8)
    assert z.hex() == (
        "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e"
        "984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42"
        "d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b"
        "5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"), "ChaCha8 TC1"
    # challenges.rs test_synth_challenges_against_hardcoded.
    rid, cr, rnd = fr(55), fr(101), bytes([1] * 32)
    gkey = synth_key(rid, cr)
    assert [synth_challenge(1 << 10, gkey, i) for i in range(21)] == [
        178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856, 801, 176, 692, 429, 691, 290,
        204, 986, 210, 973]
    assert synthetic(1 << 10, 10, 0, rid, cr, rnd, num_synth=21) == [
        176, 781, 801, 986, 290, 211, 692, 856, 986, 332]
    # parent_cache.json (rust-fil-proofs storage-proofs-porep).
    manifest = {
        "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899":
            "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
        "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b":
            "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97",
        "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc":
            "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce",
        "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5":
            "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab",
    }
    checks = [(0, 64, "V1_0"), (5, 64, "V1_1")]
    if full:
        checks += [(1, 1 << 18, "V1_0"), (6, 1 << 18, "V1_1")]
    for pid, nodes, api in checks:
        g = Graph(nodes, porep_id(pid), api)
        name = cache_name(g)
        assert name in manifest, name
        d = g.cache_digest()
        assert d == manifest[name], (pid, d)
        print("parent cache of porep id %d (%d nodes) matches %s" % (pid, nodes, d),
              file=sys.stderr)


# ---------------------------------------------------------------- vectors


def det(label, n=32):
    """Deterministic test bytes."""
    out = b""
    c = 0
    while len(out) < n:
        out += hashlib.sha256(b"zkpd porep_graph vectors|" + label.encode() +
                              struct.pack("<I", c)).digest()
        c += 1
    return out[:n]


def det_fr(label):
    b = bytearray(det(label))
    b[31] &= 0x3F
    return bytes(b)


def main():
    args = [a for a in sys.argv[1:] if a != "--full"]
    full = "--full" in sys.argv[1:]
    self_check(full)
    reg = registry()
    api_of = {r["id"]: r["api"] for r in reg}

    graphs = []
    plan = [
        (0, 64, list(range(64))),
        (5, 64, list(range(64))),
        (10, 64, [0, 1, 2, 3, 31, 63]),
        (6, 1 << 18, [0, 1, 2, 3, 4, 5, 100, 4095, 4096, 65537, (1 << 18) - 1]),
        (3, 1 << 30, [0, 1, 2, 3, 7, 1000, 123456, (1 << 29) + 5, (1 << 30) - 1]),
        (8, 1 << 30, [0, 1, 2, 3, 7, 1000, 123456, (1 << 29) + 5, (1 << 30) - 2, (1 << 30) - 1]),
        (18, 1 << 30, [2, 3, 999999, (1 << 30) - 1]),
        (9, 1 << 31, [2, 3, 1 << 20, (1 << 31) - 1]),
    ]
    for pid, nodes, picks in plan:
        pb = porep_id(pid)
        g = Graph(nodes, pb, api_of[pid])
        for j in range(6):
            v = int.from_bytes(det("node %d %d" % (pid, j), 8), "little") % nodes
            if v not in picks:
                picks.append(v)
        graphs.append({
            "proof_id": pid, "nodes": nodes, "api": g.api, "porep_id": pb.hex(),
            "drg_seed": g.seed28.hex(), "feistel_keys": ["%016x" % k for k in g.keys],
            "feistel_half_bits": g.half_bits,
            "parents": [{"node": v, "drg": g.drg(v), "exp": g.exp(v)} for v in picks],
        })

    challenges = []
    cases = [
        ("interactive", 64, 2, [0]),
        ("interactive", 1 << 18, 2, [0]),
        ("interactive", 1 << 30, 18, [0, 1, 9]),
        ("interactive", 1 << 31, 18, [0, 9]),
        ("synthetic", 64, 2, [0]),
        ("synthetic", 1 << 18, 2, [0]),
        ("synthetic", 1 << 30, 18, [0, 4, 9]),
        ("non_interactive", 64, 2, [0, 1, 12]),
        ("non_interactive", 1 << 24, 2, [0, 12]),
        ("non_interactive", 1 << 30, 18, [0, 1, 125]),
    ]
    for n, (mode, nodes, per, ks) in enumerate(cases):
        rid = det_fr("replica %d" % n)
        seed = det("seed %d" % n)
        comm_r = det_fr("comm_r %d" % n)
        for k in ks:
            if mode == "interactive":
                c = interactive(nodes, per, k, rid, seed)
            elif mode == "synthetic":
                c = synthetic(nodes, per, k, rid, comm_r, seed)
            else:
                c = non_interactive(nodes, per, k, rid, comm_r)
            challenges.append({"mode": mode, "nodes": nodes, "per_partition": per, "k": k,
                               "replica_id": rid.hex(), "seed": seed.hex(),
                               "comm_r": comm_r.hex(), "challenges": c})

    synth_sets = []
    for n, (nodes, num) in enumerate([(64, 64), (1 << 18, 1 << 18), (1 << 30, 1 << 18)]):
        rid, comm_r = det_fr("synth replica %d" % n), det_fr("synth comm_r %d" % n)
        gkey = synth_key(rid, comm_r)
        idx = list(range(8)) + [num // 2 + 1, num - 1]
        synth_sets.append({"nodes": nodes, "num_synth": num, "replica_id": rid.hex(),
                           "comm_r": comm_r.hex(), "key": gkey.hex(),
                           "at": [[i, synth_challenge(nodes, gkey, i)] for i in idx]})

    replica_ids = []
    for n, (sector_id, pid) in enumerate([(0, 0), (1, 5), (123456789, 8), (M64, 13),
                                          (1 << 63, 18)]):
        prover, ticket, comm_d = det("prover %d" % n), det("ticket %d" % n), det("comm_d %d" % n)
        pb = porep_id(pid)
        replica_ids.append({"prover_id": prover.hex(), "sector_id": "%016x" % sector_id,
                            "ticket": ticket.hex(), "comm_d": comm_d.hex(),
                            "porep_id": pb.hex(),
                            "replica_id": replica_id(prover, sector_id, ticket, comm_d,
                                                     pb).hex()})

    out = {
        "about": "Filecoin PoRep graph parents, challenges and replica ids; "
                 "written by tests/vectors/gen_porep_graph_vectors.py, see README.md",
        "registry": reg,
        "graphs": graphs,
        "challenges": challenges,
        "synthetic_sets": synth_sets,
        "replica_ids": replica_ids,
    }
    path = args[0] if args else "porep_graph_vectors.json"
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote %s" % path, file=sys.stderr)


if __name__ == "__main__":
    main()

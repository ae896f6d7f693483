#!/usr/bin/python3
"""The cuzk.v1 gRPC service of a running zkpd, spoken to as Curio speaks it.

Run by run.sh, which starts zkpd and makes the inputs. Stubs come from our
own proto/cuzk/v1/proving.proto (protoc --python_out, into GEN_DIR), and
calls go through Debian's python3-grpcio. Prints TAP-like "ok - " and
"FAIL - " lines, then one JSON line of figures ("figures": ...); exits 1
when any check failed.
"""
import argparse
import base64
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import threading
import time

import grpc

failed = 0


def ok(what):
    print("ok - " + what, flush=True)


def bad(what, detail):
    global failed
    failed += 1
    print("FAIL - %s (%s)" % (what, detail), flush=True)


def check(what, cond, detail=""):
    ok(what) if cond else bad(what, detail)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)       # unix:PATH or HOST:PORT
    ap.add_argument("--gen-dir", required=True)      # holds cuzk/v1/proving_pb2.py
    ap.add_argument("--token", required=True)        # server.token_file's token
    ap.add_argument("--c1", required=True)           # a 2 KiB C1 JSON (FFI form)
    ap.add_argument("--winning", required=True)      # a WinningPoSt sector proof (bincode)
    ap.add_argument("--randomness", required=True)   # 64 hex digits
    ap.add_argument("--zkpctl", required=True)       # framed client: zkpctl --connect ...
    ap.add_argument("--framed", required=True)       # the framed socket address
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--out-dir", required=True)      # proofs written for run.sh to verify
    ap.add_argument("--max-message", type=int, required=True)
    ap.add_argument("--snap", required=True)         # a SnapDeals PartitionProof (bincode)
    ap.add_argument("--snap-comms", required=True)   # comm_r_old,comm_d_new,comm_r_new (hex)
    ap.add_argument("--figures", action="store_true")  # also time gRPC against framed calls
    a = ap.parse_args()

    sys.path.insert(0, a.gen_dir)
    from cuzk.v1 import proving_pb2 as pb

    channel = grpc.insecure_channel(
        a.target,
        options=[("grpc.max_send_message_length", 64 << 20),
                 ("grpc.max_receive_message_length", 64 << 20)])
    good = [("authorization", "Bearer " + a.token)]

    def method(name, req_cls, resp_cls):
        return channel.unary_unary("/cuzk.v1.ProvingEngine/" + name,
                                   request_serializer=req_cls.SerializeToString,
                                   response_deserializer=resp_cls.FromString)

    Submit = method("SubmitProof", pb.SubmitProofRequest, pb.SubmitProofResponse)
    Await = method("AwaitProof", pb.AwaitProofRequest, pb.AwaitProofResponse)
    Prove = method("Prove", pb.ProveRequest, pb.ProveResponse)
    Cancel = method("CancelProof", pb.CancelProofRequest, pb.CancelProofResponse)
    Status = method("GetStatus", pb.GetStatusRequest, pb.GetStatusResponse)
    Metrics = method("GetMetrics", pb.GetMetricsRequest, pb.GetMetricsResponse)
    Preload = method("PreloadSRS", pb.PreloadSrsRequest, pb.PreloadSrsResponse)
    Evict = method("EvictSRS", pb.EvictSrsRequest, pb.EvictSrsResponse)

    def code_of(fn, req, md=good, timeout=120):
        try:
            fn(req, metadata=md, timeout=timeout)
            return grpc.StatusCode.OK, ""
        except grpc.RpcError as e:
            return e.code(), e.details()

    c1 = open(a.c1, "rb").read()
    # Curio's envelope: {"SectorNum", "Phase1Out" (base64 of the C1 JSON), "SectorSize"}.
    wrapped = json.dumps({"SectorNum": 5, "Phase1Out": base64.b64encode(c1).decode(),
                          "SectorSize": 2048}).encode()
    winning = open(a.winning, "rb").read()
    rnd = bytes.fromhex(a.randomness)

    def porep(rid, prio=pb.NORMAL):
        return pb.SubmitProofRequest(request_id=rid, proof_kind=pb.POREP_SEAL_COMMIT,
                                     sector_size=2048, registered_proof=0, priority=prio,
                                     vanilla_proof=wrapped, sector_number=5, miner_id=1000)

    def winpost(rid):
        return pb.SubmitProofRequest(request_id=rid, proof_kind=pb.WINNING_POST,
                                     sector_size=2048, registered_proof=0,
                                     priority=pb.CRITICAL, vanilla_proofs=[winning],
                                     miner_id=1000, randomness=rnd)

    figures = {}
    snap = open(a.snap, "rb").read()
    r_old, d_new, r_new = (bytes.fromhex(h) for h in a.snap_comms.split(","))

    # --- authentication ------------------------------------------------------
    code, msg = code_of(Status, pb.GetStatusRequest(), md=())
    check("a call without a token is refused UNAUTHENTICATED",
          code == grpc.StatusCode.UNAUTHENTICATED, "%s %s" % (code, msg))
    check("the refusal says what to send", "authorization: Bearer" in msg, msg)
    code, msg = code_of(Status, pb.GetStatusRequest(),
                        md=[("authorization", "Bearer not-the-token")])
    check("a wrong token is refused UNAUTHENTICATED",
          code == grpc.StatusCode.UNAUTHENTICATED, "%s %s" % (code, msg))
    big = porep("big-no-token")
    big.vanilla_proof = b" " * (a.max_message + 1024)
    code, msg = code_of(Submit, big, md=())
    check("an oversize message without a token is refused before it is read",
          code == grpc.StatusCode.UNAUTHENTICATED, "%s %s" % (code, msg))

    # --- status ---------------------------------------------------------------
    for _ in range(600):  # the preloads may still run
        st = Status(pb.GetStatusRequest(), metadata=good, timeout=10)
        if all(s.tier == pb.SRSStatus.HOT for s in st.loaded_srs):
            break
        time.sleep(0.5)
    kinds = {q.proof_kind for q in st.queues}
    check("GetStatus lists the proof kinds configured", kinds == {
        "POREP_SEAL_COMMIT", "WINNING_POST", "WINDOW_POST_PARTITION", "SNAP_DEALS_UPDATE"},
          str(kinds))
    srs = {s.circuit_id: s for s in st.loaded_srs}
    check("GetStatus shows the preloaded circuits HOT with their sizes",
          "porep-2k" in srs and srs["porep-2k"].tier == pb.SRSStatus.HOT
          and srs["porep-2k"].size_bytes > 0, str(st.loaded_srs))
    check("GetStatus gives the memory budget as the pinned limit",
          st.pinned_memory_limit_bytes > 0, str(st))
    done0 = st.total_proofs_completed

    # --- Prove, with its timings ------------------------------------------------
    # A WinningPoSt: the shortest proof. Curio's other kinds (PoRep in its
    # wrapper, SnapDeals, WindowPoSt partitions) are proved and verified by
    # the grpc-go client of integration_grpc_curio; here they are refused.
    r = Prove(pb.ProveRequest(submit=winpost("winpost-1000-5")), metadata=good,
              timeout=300).result
    check("Prove of a WinningPoSt completes with one 192-byte proof",
          r.status == pb.AwaitProofResponse.COMPLETED and len(r.proof) == 192,
          "%s %s" % (r.status, r.error_message))
    check("its timings are filled", r.total_ms > 0 and r.gpu_compute_ms > 0
          and r.synthesis_ms > 0, str(r))
    req = pb.SubmitProofRequest(request_id="snap-1000-5-other", proof_kind=pb.SNAP_DEALS_UPDATE,
                                sector_size=2048, registered_proof=0, priority=pb.NORMAL,
                                vanilla_proofs=[snap], sector_number=5, miner_id=1000,
                                comm_r_old=r_old, comm_r_new=r_new, comm_d_new=d_new)
    req.comm_r_new = bytes(32)
    r = Prove(pb.ProveRequest(submit=req), metadata=good, timeout=300).result
    check("a SnapDeals update with another comm_r_new ends FAILED, naming why",
          r.status == pb.AwaitProofResponse.FAILED and "ERR_" in r.error_message,
          "%s %s" % (r.status, r.error_message))

    # The request-id checks below use WinningPoSts: the shortest proof (about 3 s
    # on 2 cores, against 25-35 s for a PoRep) behaves the same way there.
    # --- idempotency: Submit twice, one job -----------------------------------
    s1 = Submit(winpost("winpost-1000-6"), metadata=good, timeout=30)
    s2 = Submit(winpost("winpost-1000-6"), metadata=good, timeout=30)
    check("Submit twice with one request_id returns one job", s1.job_id == s2.job_id,
          "%s %s" % (s1.job_id, s2.job_id))
    w = Await(pb.AwaitProofRequest(job_id=s1.job_id), metadata=good, timeout=300)
    check("AwaitProof returns its proof", w.status == pb.AwaitProofResponse.COMPLETED
          and len(w.proof) == 192 and w.job_id == s1.job_id, str(w.status))
    again = Prove(pb.ProveRequest(submit=winpost("winpost-1000-6")), metadata=good,
                  timeout=30).result
    check("Prove with that request_id again returns the same proof without a new job",
          again.job_id == s1.job_id and again.proof == w.proof, again.job_id)

    # --- Await timeout, Cancel --------------------------------------------------
    s3 = Submit(winpost("winpost-1000-7"), metadata=good, timeout=30)
    t = Await(pb.AwaitProofRequest(job_id=s3.job_id, timeout_ms=50), metadata=good, timeout=30)
    check("AwaitProof with a short timeout answers TIMEOUT", t.status ==
          pb.AwaitProofResponse.TIMEOUT, str(t.status))
    c = Cancel(pb.CancelProofRequest(job_id=s3.job_id), metadata=good, timeout=30)
    w = Await(pb.AwaitProofRequest(job_id=s3.job_id), metadata=good, timeout=300)
    check("CancelProof cancels it", w.status == pb.AwaitProofResponse.CANCELLED,
          "%s was_running=%s %s" % (w.status, c.was_running, w.error_message))
    code, msg = code_of(Cancel, pb.CancelProofRequest(job_id="987654"))
    check("CancelProof of an unknown job is NOT_FOUND", code == grpc.StatusCode.NOT_FOUND,
          "%s %s" % (code, msg))
    code, msg = code_of(Await, pb.AwaitProofRequest(job_id="abc"))
    check("AwaitProof of a job_id that is no number is INVALID_ARGUMENT naming it",
          code == grpc.StatusCode.INVALID_ARGUMENT and "job_id" in msg, "%s %s" % (code, msg))

    # --- refusals ---------------------------------------------------------------
    req = porep("x")
    req.sector_size = 32 << 30
    code, msg = code_of(Submit, req)
    check("a sector size no circuit serves is NOT_FOUND naming the option",
          code == grpc.StatusCode.NOT_FOUND and "porep_sector_size" in msg, msg)
    req = winpost("y")
    req.randomness = b"\x01" * 31
    code, msg = code_of(Submit, req)
    check("31 bytes of randomness are INVALID_ARGUMENT naming the field",
          code == grpc.StatusCode.INVALID_ARGUMENT and "randomness" in msg, msg)
    req = porep("z")
    req.vanilla_proof = b"{\"not\": \"a C1\"}"
    r = Prove(pb.ProveRequest(submit=req), metadata=good, timeout=60).result
    check("a malformed C1 ends FAILED with the engine's reason",
          r.status == pb.AwaitProofResponse.FAILED and r.error_message.startswith("ERR_"),
          "%s %s" % (r.status, r.error_message))
    req = winpost("zw")
    req.vanilla_proofs[0] = winning[:-1]
    r = Prove(pb.ProveRequest(submit=req), metadata=good, timeout=60).result
    check("a truncated WinningPoSt vanilla proof ends FAILED with the engine's reason",
          r.status == pb.AwaitProofResponse.FAILED and r.error_message.startswith("ERR_"),
          "%s %s" % (r.status, r.error_message))
    failed_job = r.job_id
    r = Prove(pb.ProveRequest(submit=winpost("zw")), metadata=good, timeout=300).result
    check("Curio's retry under the failed request_id proves again",
          r.status == pb.AwaitProofResponse.COMPLETED and len(r.proof) == 192
          and r.job_id != failed_job, "%s %s %s" % (r.status, r.job_id, r.error_message))

    # --- an oversize message beside other calls ---------------------------------
    big = porep("too-big")
    big.vanilla_proof = b" " * (a.max_message + 1024)
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        fut_big = ex.submit(code_of, Submit, big)
        small = [ex.submit(code_of, Status, pb.GetStatusRequest()) for _ in range(6)]
        code, msg = fut_big.result()
        check("a message over grpc.max_message_bytes is RESOURCE_EXHAUSTED",
              code == grpc.StatusCode.RESOURCE_EXHAUSTED, "%s %s" % (code, msg))
        check("calls beside it are answered",
              all(f.result()[0] == grpc.StatusCode.OK for f in small),
              str([f.result() for f in small]))

    # --- deadline: the call ends, the job goes on ---------------------------------
    code, _ = code_of(Prove, pb.ProveRequest(submit=winpost("winpost-1000-8")), timeout=0.3)
    check("a Prove past its deadline ends DEADLINE_EXCEEDED",
          code == grpc.StatusCode.DEADLINE_EXCEEDED, str(code))
    r = Prove(pb.ProveRequest(submit=winpost("winpost-1000-8")), metadata=good, timeout=300).result
    check("a retry with its request_id gets that job's proof",
          r.status == pb.AwaitProofResponse.COMPLETED and len(r.proof) == 192, str(r.status))

    # --- SRS ---------------------------------------------------------------------
    e = Evict(pb.EvictSrsRequest(circuit_id="winning-2k"), metadata=good, timeout=30)
    check("EvictSRS by KIND-SIZE unloads the idle circuit",
          e.was_loaded and e.freed_bytes > 0, str(e))
    st = Status(pb.GetStatusRequest(), metadata=good, timeout=10)
    tier = {s.circuit_id: s.tier for s in st.loaded_srs}.get("post-winning-2k")
    check("GetStatus then shows it COLD", tier == pb.SRSStatus.COLD, str(tier))
    p1 = Preload(pb.PreloadSrsRequest(circuit_id="winning-2k"), metadata=good, timeout=120)
    p2 = Preload(pb.PreloadSrsRequest(circuit_id="winning-2k"), metadata=good, timeout=120)
    check("PreloadSRS loads it, then finds it loaded",
          not p1.already_loaded and p2.already_loaded, "%s / %s" % (p1, p2))
    code, msg = code_of(Evict, pb.EvictSrsRequest(circuit_id="porep-64g"))
    check("EvictSRS of a circuit not configured is NOT_FOUND",
          code == grpc.StatusCode.NOT_FOUND, "%s %s" % (code, msg))
    m = Metrics(pb.GetMetricsRequest(), metadata=good, timeout=10)
    check("GetMetrics is the daemon's Prometheus text",
          "# TYPE zkpd_jobs_total counter" in m.prometheus_text, m.prometheus_text[:200])
    lines = {l.split(" ")[0]: l.split(" ")[1] for l in m.prometheus_text.splitlines()
             if l.startswith("zkpd_grpc_")}
    check("it counts gRPC calls by status code",
          int(lines.get('zkpd_grpc_calls_total{code="OK"}', 0)) > 10
          and int(lines.get('zkpd_grpc_calls_total{code="UNAUTHENTICATED"}', 0)) == 3
          and int(lines.get('zkpd_grpc_calls_total{code="NOT_FOUND"}', 0)) == 3
          and int(lines.get("zkpd_grpc_calls_abandoned_total", 0)) >= 2
          and "zkpd_grpc_calls_open" in lines, str(lines))

    # --- load: 200 gRPC calls beside framed clients ----------------------------
    st = Status(pb.GetStatusRequest(), metadata=good, timeout=10)
    done_before = st.total_proofs_completed
    ids = ["winpost-load-%d" % i for i in range(10)]

    def one(i):
        k = i % 4
        if k in (0, 1):  # Prove (100 calls): 10 request ids, 10 calls each
            rid = ids[((i // 4) * 2 + k) % 10]
            r = Prove(pb.ProveRequest(submit=winpost(rid)), metadata=good, timeout=600).result
            return ("prove", rid, r.job_id, r.status, r.proof)
        if k == 2:
            s = Status(pb.GetStatusRequest(), metadata=good, timeout=60)
            return ("status", None, None, None, len(s.queues))
        m = Metrics(pb.GetMetricsRequest(), metadata=good, timeout=60)
        return ("metrics", None, None, None, len(m.prometheus_text))

    framed_ok = []

    def framed():
        for _ in range(10):
            p = subprocess.run([a.zkpctl, "--connect", a.framed, "--token-file", a.token_file,
                                "health"], capture_output=True)
            framed_ok.append(p.returncode == 0)

    th = [threading.Thread(target=framed) for _ in range(4)]
    for t_ in th:
        t_.start()
    t0 = time.monotonic()
    errors = []
    results = []
    with concurrent.futures.ThreadPoolExecutor(200) as ex:
        futs = [ex.submit(one, i) for i in range(200)]
        for f in futs:
            try:
                results.append(f.result())
            except grpc.RpcError as e:
                errors.append("%s %s" % (e.code(), e.details()))
    load_s = time.monotonic() - t0
    for t_ in th:
        t_.join()
    check("200 concurrent gRPC calls are all answered", not errors and len(results) == 200,
          "%d errors: %s" % (len(errors), errors[:3]))
    proves = [r for r in results if r[0] == "prove"]
    jobs = {}
    for _, rid, job, status, proof in proves:
        jobs.setdefault(rid, set()).add(job)
    check("each request_id is one job (10 ids, 100 Prove calls)",
          len(jobs) == 10 and all(len(v) == 1 for v in jobs.values()), str(jobs))
    check("every Prove got a 192-byte proof", all(r[3] == pb.AwaitProofResponse.COMPLETED
                                                  and len(r[4]) == 192 for r in proves),
          str([(r[1], r[3]) for r in proves if r[3] != pb.AwaitProofResponse.COMPLETED][:3]))
    check("the framed clients beside them were served (40 Health calls)",
          len(framed_ok) == 40 and all(framed_ok), str(framed_ok.count(False)))
    st = Status(pb.GetStatusRequest(), metadata=good, timeout=10)
    check("the daemon proved exactly 10 proofs for them",
          st.total_proofs_completed - done_before == 10,
          str(st.total_proofs_completed - done_before))
    for i, rid in enumerate(ids[:1]):
        open(os.path.join(a.out_dir, "grpc-winning.bin"), "wb").write(
            next(r[4] for r in proves if r[1] == rid))
    figures["load_200_calls_seconds"] = round(load_s, 2)
    if a.figures:
        latency(a, Prove, Status, winpost, good, figures)
    print("figures " + json.dumps(figures), flush=True)
    print("# %d failed" % failed)
    return 1 if failed else 0


def latency(a, Prove, Status, winpost, good, figures):
    from cuzk.v1 import proving_pb2 as pb
    # --- latency: the same job through gRPC and through the framed protocol -----
    g, f = [], []
    for i in range(3):
        t0 = time.monotonic()
        r = Prove(pb.ProveRequest(submit=winpost("lat-grpc-%d" % i)), metadata=good,
                  timeout=300).result
        g.append(time.monotonic() - t0)
        if r.status != pb.AwaitProofResponse.COMPLETED:
            bad("latency run %d over gRPC" % i, r.error_message)
        t0 = time.monotonic()
        p = subprocess.run([a.zkpctl, "--connect", a.framed, "--token-file", a.token_file,
                            "post", "post-winning-2k", "--proof-type", "0", "--randomness",
                            a.randomness, "--request-id", "lat-framed-%d" % i, "--out",
                            os.path.join(a.out_dir, "framed-%d.bin" % i), a.winning],
                           capture_output=True)
        f.append(time.monotonic() - t0)
        if p.returncode:
            bad("latency run %d over the framed protocol" % i, p.stderr.decode()[:200])
    # Per call: GetStatus over gRPC against Status over a framed connection
    # (the same session code answers both), 300 sequential calls each, in
    # alternating rounds.
    from zkpd.v1 import zkpd_pb2 as zp
    import socket
    import struct
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(a.framed[len("unix:"):])

    def framed_call(call_id, req):
        env = zp.Envelope(call_id=call_id, request=req).SerializeToString()
        sock.sendall(struct.pack(">I", len(env)) + env)
        while True:
            head = b""
            while len(head) < 4:
                head += sock.recv(4 - len(head))
            (n,) = struct.unpack(">I", head)
            body = b""
            while len(body) < n:
                body += sock.recv(n - len(body))
            out = zp.Envelope.FromString(body)
            if out.call_id == call_id and out.WhichOneof("body") in ("response", "error"):
                return out

    auth = framed_call(1, zp.Request(authenticate=zp.AuthenticateRequest(token=a.token)))
    check("a framed client in Python authenticates", auth.WhichOneof("body") == "response",
          str(auth))
    per_g, per_f = [], []
    for rnd_i in range(3):
        t0 = time.monotonic()
        for _ in range(100):
            Status(pb.GetStatusRequest(), metadata=good, timeout=10)
        per_g.append((time.monotonic() - t0) / 100)
        t0 = time.monotonic()
        for i in range(100):
            framed_call(10 + i, zp.Request(status=zp.StatusRequest()))
        per_f.append((time.monotonic() - t0) / 100)
    sock.close()
    figures["status_call_grpc_ms_median"] = round(statistics.median(per_g) * 1000, 3)
    figures["status_call_framed_ms_median"] = round(statistics.median(per_f) * 1000, 3)
    figures["winning_2k_grpc_seconds_median"] = round(statistics.median(g), 4)
    figures["winning_2k_framed_seconds_median"] = round(statistics.median(f), 4)
    figures["grpc_over_framed_ratio"] = round(statistics.median(g) / statistics.median(f), 3)
    ok("latency measured (figures below)")


if __name__ == "__main__":
    sys.exit(main())

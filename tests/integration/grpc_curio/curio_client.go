// curio_client calls zkpd's cuzk.v1 ProvingEngine the way Curio's cuzk
// client does: plaintext (insecure transport credentials), 256 MiB message
// limits each way, a 30-minute deadline a call, and Prove only.
//
// Messages are built at run time from the descriptor set protoc writes for
// proto/cuzk/v1/proving.proto (dynamicpb), so nothing is generated and the
// program builds offline from Debian's Go packages alone.
//
// It proves, each through one Prove call:
//   - a PoRep C2 with the C1 in Curio's wrapper {SectorNum, Phase1Out
//     (base64 of the FFI's C1 JSON), SectorSize}, once as written and once
//     decoded into a map and encoded again by encoding/json (other key
//     order and number forms);
//   - a SnapDeals update with sector_size 0 (the size from registered_proof,
//     as ProofShare sends it);
//   - two WindowPoSt partitions of one deadline under the one request id
//     Curio gives them both ("wdpost-MINER-0-RAND8");
//   - a WinningPoSt at CRITICAL.
//
// The calls run concurrently, as Curio's tasks make them. Each proof goes
// to OUT/NAME.bin and its job id to OUT/NAME.job for the caller to verify. Prints "ok - " and "FAIL - " lines; exits 1 on any
// failure.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

const (
	messageLimit = 256 << 20
	callDeadline = 30 * time.Minute
	proveMethod  = "/cuzk.v1.ProvingEngine/Prove"
	minerID      = 1000
	sectorNumber = 5
	sectorSize2K = 2048
	sealV1_1_2K  = 5 // RegisteredSealProof StackedDrg2KiBV1_1
	updateV1_2K  = 0 // RegisteredUpdateProof StackedDrg2KiBV1
	windowV1_2K  = 5 // RegisteredPoStProof StackedDrgWindow2KiBV1
	winningV1_2K = 0 // RegisteredPoStProof StackedDrgWinning2KiBV1
)

var (
	mu     sync.Mutex // output and failed: calls run concurrently
	failed int
)

// codec marshals with google.golang.org/protobuf, which knows dynamic
// messages (Debian's grpc-go would use the older github.com/golang/protobuf,
// which does not); on the wire it is the same "proto" codec.
type codec struct{}

func (codec) Marshal(v interface{}) ([]byte, error) { return proto.Marshal(v.(proto.Message)) }
func (codec) Unmarshal(b []byte, v interface{}) error {
	return proto.Unmarshal(b, v.(proto.Message))
}
func (codec) Name() string { return "proto" }

func ok(what string) {
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("ok - %s\n", what)
}

func bad(what string, detail interface{}) {
	mu.Lock()
	defer mu.Unlock()
	failed++
	fmt.Printf("FAIL - %s (%v)\n", what, detail)
}

type schema struct {
	submit, prove, response protoreflect.MessageDescriptor
	kinds, prios            protoreflect.EnumDescriptor
}

func loadSchema(path string) (*schema, error) {
	raw, err := ioutil.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	s := &schema{}
	find := func(name string) (protoreflect.Descriptor, error) {
		d, err := files.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", path, name, err)
		}
		return d, nil
	}
	for name, dst := range map[string]*protoreflect.MessageDescriptor{
		"cuzk.v1.SubmitProofRequest": &s.submit,
		"cuzk.v1.ProveRequest":       &s.prove,
		"cuzk.v1.ProveResponse":      &s.response,
	} {
		d, err := find(name)
		if err != nil {
			return nil, err
		}
		*dst = d.(protoreflect.MessageDescriptor)
	}
	for name, dst := range map[string]*protoreflect.EnumDescriptor{
		"cuzk.v1.ProofKind": &s.kinds,
		"cuzk.v1.Priority":  &s.prios,
	} {
		d, err := find(name)
		if err != nil {
			return nil, err
		}
		*dst = d.(protoreflect.EnumDescriptor)
	}
	return s, nil
}

// request is one SubmitProofRequest, as Curio fills it.
type request struct {
	id            string
	kind, prio    string
	sectorSize    uint64
	registered    uint64
	vanillaProof  []byte
	vanillaProofs [][]byte
	randomness    []byte
	partition     uint32
	commROld      []byte
	commRNew      []byte
	commDNew      []byte
}

func (s *schema) submitMessage(r *request) *dynamicpb.Message {
	m := dynamicpb.NewMessage(s.submit)
	f := s.submit.Fields()
	set := func(name string, v protoreflect.Value) {
		m.Set(f.ByName(protoreflect.Name(name)), v)
	}
	set("request_id", protoreflect.ValueOfString(r.id))
	set("proof_kind", protoreflect.ValueOfEnum(s.kinds.Values().ByName(protoreflect.Name(r.kind)).Number()))
	set("priority", protoreflect.ValueOfEnum(s.prios.Values().ByName(protoreflect.Name(r.prio)).Number()))
	if r.sectorSize != 0 {
		set("sector_size", protoreflect.ValueOfUint64(r.sectorSize))
	}
	if r.registered != 0 {
		set("registered_proof", protoreflect.ValueOfUint64(r.registered))
	}
	set("miner_id", protoreflect.ValueOfUint64(minerID))
	set("sector_number", protoreflect.ValueOfUint64(sectorNumber))
	if r.vanillaProof != nil {
		set("vanilla_proof", protoreflect.ValueOfBytes(r.vanillaProof))
	}
	if len(r.vanillaProofs) > 0 {
		list := m.Mutable(f.ByName("vanilla_proofs")).List()
		for _, p := range r.vanillaProofs {
			list.Append(protoreflect.ValueOfBytes(p))
		}
	}
	if r.randomness != nil {
		set("randomness", protoreflect.ValueOfBytes(r.randomness))
	}
	if r.partition != 0 {
		set("partition_index", protoreflect.ValueOfUint32(r.partition))
	}
	for name, v := range map[string][]byte{"comm_r_old": r.commROld, "comm_r_new": r.commRNew,
		"comm_d_new": r.commDNew} {
		if v != nil {
			set(name, protoreflect.ValueOfBytes(v))
		}
	}
	return m
}

type result struct {
	jobID  string
	status string
	proof  []byte
	errMsg string
}

// proveCall makes one Prove call with Curio's deadline and reads its result.
func (s *schema) proveCall(conn *grpc.ClientConn, r *request) (*result, error) {
	in := dynamicpb.NewMessage(s.prove)
	in.Set(s.prove.Fields().ByName("submit"), protoreflect.ValueOfMessage(s.submitMessage(r)))
	out := dynamicpb.NewMessage(s.response)
	ctx, cancel := context.WithTimeout(context.Background(), callDeadline)
	defer cancel()
	if err := conn.Invoke(ctx, proveMethod, in, out); err != nil {
		return nil, err
	}
	res := out.Get(s.response.Fields().ByName("result")).Message()
	rf := res.Descriptor().Fields()
	st := rf.ByName("status")
	return &result{
		jobID:  res.Get(rf.ByName("job_id")).String(),
		status: string(st.Enum().Values().ByNumber(res.Get(st).Enum()).Name()),
		proof:  res.Get(rf.ByName("proof")).Bytes(),
		errMsg: res.Get(rf.ByName("error_message")).String(),
	}, nil
}

func readAll(path string) []byte {
	b, err := ioutil.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "curio_client: %v\n", err)
		os.Exit(2)
	}
	return b
}

func readList(paths string) [][]byte {
	var out [][]byte
	for _, p := range strings.Split(paths, ",") {
		out = append(out, readAll(p))
	}
	return out
}

func fromHex(what, h string) []byte {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 32 {
		fmt.Fprintf(os.Stderr, "curio_client: %s: not 32 bytes of hex\n", what)
		os.Exit(2)
	}
	return b
}

// wrapC1 is Curio's envelope of a C1 for cuzk: encoding/json writes the
// []byte field as base64.
func wrapC1(c1 []byte) []byte {
	w := struct {
		SectorNum  int64
		Phase1Out  []byte
		SectorSize uint64
	}{sectorNumber, c1, sectorSize2K}
	b, err := json.Marshal(w)
	if err != nil {
		panic(err)
	}
	return b
}

// reencode decodes JSON into generic values and encodes them again, as a
// Go program that passes a C1 through map[string]interface{} does: keys
// come out sorted, numbers as float64 text.
func reencode(b []byte) ([]byte, error) {
	var v interface{}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func main() {
	target := flag.String("target", "", "unix:///PATH or HOST:PORT")
	desc := flag.String("descriptors", "", "protoc --descriptor_set_out of proving.proto")
	c1Path := flag.String("c1", "", "a 2 KiB C1 (the FFI's JSON)")
	windowA := flag.String("window-a", "", "one partition's sector proofs, comma-separated")
	windowB := flag.String("window-b", "", "another partition's, comma-separated")
	rndHex := flag.String("randomness", "", "the PoSt randomness, 64 hex digits")
	winning := flag.String("winning", "", "a WinningPoSt sector proof")
	snap := flag.String("snap", "", "a SnapDeals PartitionProof")
	comms := flag.String("snap-comms", "", "comm_r_old,comm_d_new,comm_r_new in hex")
	outDir := flag.String("out", ".", "where proofs and job ids are written")
	flag.Parse()

	s, err := loadSchema(*desc)
	if err != nil {
		fmt.Fprintf(os.Stderr, "curio_client: %v\n", err)
		os.Exit(2)
	}
	conn, err := grpc.Dial(*target, grpc.WithInsecure(),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(messageLimit),
			grpc.MaxCallSendMsgSize(messageLimit), grpc.ForceCodec(codec{})))
	if err != nil {
		fmt.Fprintf(os.Stderr, "curio_client: dial %s: %v\n", *target, err)
		os.Exit(2)
	}
	defer conn.Close()

	save := func(name string, r *result) {
		_ = ioutil.WriteFile(filepath.Join(*outDir, name+".bin"), r.proof, 0o644)
		_ = ioutil.WriteFile(filepath.Join(*outDir, name+".job"), []byte(r.jobID+"\n"), 0o644)
	}
	call := func(name, what string, r *request) *result {
		t0 := time.Now()
		res, err := s.proveCall(conn, r)
		if err != nil {
			bad(what, err)
			return nil
		}
		if res.status != "COMPLETED" || len(res.proof) != 192 {
			bad(what, fmt.Sprintf("%s, %d-byte proof: %s", res.status, len(res.proof),
				res.errMsg))
			return nil
		}
		ok(fmt.Sprintf("%s (job %s, %.1f s)", what, res.jobID, time.Since(t0).Seconds()))
		save(name, res)
		return res
	}

	rnd := fromHex("randomness", *rndHex)
	c1 := readAll(*c1Path)
	cs := strings.Split(*comms, ",")
	if len(cs) != 3 {
		fmt.Fprintln(os.Stderr, "curio_client: -snap-comms: expected three values")
		os.Exit(2)
	}
	snapReq := &request{
		id:   fmt.Sprintf("ps-snap-%d-%d-%d", minerID, sectorNumber, 78),
		kind: "SNAP_DEALS_UPDATE", prio: "NORMAL", registered: updateV1_2K,
		vanillaProofs: [][]byte{readAll(*snap)}, commROld: fromHex("comm_r_old", cs[0]),
		commDNew: fromHex("comm_d_new", cs[1]), commRNew: fromHex("comm_r_new", cs[2])}
	windowAProofs, windowBProofs := readList(*windowA), readList(*windowB)
	winningProof := readAll(*winning)

	// Curio's tasks call at the same time, each on the one connection.
	var wg sync.WaitGroup
	async := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}

	// PoRep, Curio's wrapper as lib/ffi writes it, then passed through
	// generic JSON (another id: another sector's proof).
	wrapped := wrapC1(c1)
	async(func() {
		call("porep-ffi", "Prove of a PoRep C1 in Curio's wrapper", &request{
			id:   fmt.Sprintf("porep-%d-%d", minerID, sectorNumber),
			kind: "POREP_SEAL_COMMIT", prio: "NORMAL", sectorSize: sectorSize2K,
			registered: sealV1_1_2K, vanillaProof: wrapped})
	})
	again, err := reencode(wrapped)
	if err == nil {
		var inner []byte
		var w struct{ Phase1Out []byte }
		if json.Unmarshal(again, &w) == nil {
			inner, err = reencode(w.Phase1Out)
		}
		if err == nil && inner != nil {
			var m map[string]interface{}
			_ = json.Unmarshal(again, &m)
			m["Phase1Out"] = base64.StdEncoding.EncodeToString(inner)
			again, err = json.Marshal(m)
		}
	}
	if err != nil || bytes.Equal(again, wrapped) {
		bad("the wrapper re-encoded by encoding/json differs from the FFI's bytes", err)
	} else {
		async(func() {
			call("porep-reencoded", "Prove of the same C1 re-encoded by encoding/json",
				&request{
					id:   fmt.Sprintf("ps-porep-%d-%d-%d", minerID, sectorNumber, 77),
					kind: "POREP_SEAL_COMMIT", prio: "NORMAL",
					sectorSize: sectorSize2K, registered: sealV1_1_2K,
					vanillaProof: again})
		})
	}

	// SnapDeals as ProofShare sends it: no sector_size.
	async(func() { call("snap", "Prove of a SnapDeals update with sector_size 0", snapReq) })

	// Two partitions of one deadline, each proved by a task of its own:
	// Curio gives both the same id and partition index 0 (the index within
	// the task); only their sectors differ.
	wdID := fmt.Sprintf("wdpost-%d-%d-%d", minerID, 0, rnd[:8])
	async(func() {
		a := call("window-a", "Prove of WindowPoSt partition 0 under "+wdID, &request{
			id: wdID, kind: "WINDOW_POST_PARTITION", prio: "HIGH",
			sectorSize: sectorSize2K, registered: windowV1_2K,
			vanillaProofs: windowAProofs, randomness: rnd})
		b := call("window-b", "Prove of another partition under the same id", &request{
			id: wdID, kind: "WINDOW_POST_PARTITION", prio: "HIGH",
			sectorSize: sectorSize2K, registered: windowV1_2K,
			vanillaProofs: windowBProofs, randomness: rnd})
		if a != nil && b != nil {
			if a.jobID != b.jobID && !bytes.Equal(a.proof, b.proof) {
				ok("the two partitions got two jobs and two proofs")
			} else {
				bad("the two partitions got two jobs and two proofs",
					a.jobID+" "+b.jobID)
			}
		}
	})

	// WinningPoSt: a block's deadline, ahead of the queued work.
	async(func() {
		call("winning", "Prove of a WinningPoSt at CRITICAL", &request{
			id:   fmt.Sprintf("winpost-%d-%x", minerID, rnd[:8]),
			kind: "WINNING_POST", prio: "CRITICAL", sectorSize: sectorSize2K,
			registered: winningV1_2K, vanillaProofs: [][]byte{winningProof},
			randomness: rnd})
	})
	wg.Wait()

	if failed > 0 {
		os.Exit(1)
	}
}

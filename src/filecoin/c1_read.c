/*
 * The C1 reader (include/zkpd/porep_c1.h, docs/filecoin-c1.md).
 *
 * YAJL calls back for every JSON event; a stack of frames, one per open
 * object or array, follows the schema: each frame knows which fields (or
 * which elements) it may hold, and where their values go. A value is
 * decoded the moment it completes (a 32-byte array straight into its Fr or
 * byte slot), so nothing is held per JSON node and the memory is the
 * result plus YAJL's small state.
 *
 * The schema is rust-filecoin-proofs-api's SealCommitPhase1Output as serde
 * derives it (src/seal.rs), over rust-fil-proofs' stacked::Proof
 * (storage-proofs-porep/src/stacked/vanilla/params.rs, column.rs,
 * column_proof.rs, labeling_proof.rs, encoding_proof.rs) and MerkleProof
 * (storage-proofs-core/src/merkle/proof.rs). serde reads fields in any
 * order, and so does this reader. Like serde, it skips the value of a
 * field its object does not have (whatever its type or depth, with a
 * debug log line naming it); an unknown enum variant or sector size tag is
 * still refused, as serde refuses it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <yajl/yajl_parse.h>

#include "c1_int.h"
#include "zkpd/file.h"
#include "zkpd/log.h"
#include "zkpd/porep_c1.h"
#include "zkpd/poseidon.h"

/* ---- names (rust-filecoin-proofs-api registry.rs, seal.rs) ---- */

static const struct {
	const char *name;
	uint64_t bytes;
} sizes[C1_SIZES] = {
	{ "2KiB", 2048 },         { "8MiB", 8ULL << 20 },   { "512MiB", 512ULL << 20 },
	{ "32GiB", 32ULL << 30 }, { "64GiB", 64ULL << 30 },
};

static const char *const versions[] = { "V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
					"V1_2_Feat_NonInteractivePoRep" };

const char *c1_size_name(unsigned i) { return sizes[i].name; }
uint64_t c1_size_bytes(unsigned i) { return sizes[i].bytes; }

/* The size index when s is "StackedDrg<size>" followed by *rest. */
static int size_prefix(const char *s, size_t len, const char **rest, size_t *rest_len)
{
	static const char head[] = "StackedDrg";
	const size_t h = sizeof(head) - 1;
	if (len < h || memcmp(s, head, h))
		return -1;
	for (unsigned i = 0; i < C1_SIZES; i++) {
		size_t n = strlen(sizes[i].name);
		if (len - h >= n && !memcmp(s + h, sizes[i].name, n)) {
			*rest = s + h + n;
			*rest_len = len - h - n;
			return (int)i;
		}
	}
	return -1;
}

int c1_tag_size(const char *s, size_t len)
{
	const char *rest;
	size_t n;
	int i = size_prefix(s, len, &rest, &n);
	return i >= 0 && n == 2 && !memcmp(rest, "V1", 2) ? i : -1;
}

int c1_proof_size(const char *s, size_t len, int *ni)
{
	const char *rest;
	size_t n;
	int i = size_prefix(s, len, &rest, &n);
	if (i < 0)
		return -1;
	for (unsigned v = 0; v < sizeof(versions) / sizeof(versions[0]); v++)
		if (n == strlen(versions[v]) && !memcmp(rest, versions[v], n)) {
			*ni = v == 3;
			return i;
		}
	return -1;
}

unsigned c1_partitions(uint64_t sector_bytes, int ni)
{
	bool big = sector_bytes >= (32ULL << 30);
	return ni ? (big ? 126 : 13) : (big ? 10 : 1);
}

/* ---- the schema ---- */

enum kind {
	K_ROOT, /* the top object, C1 or wrapper: its first key decides */
	K_C1,
	K_WRAPPER,
	K_VP, /* vanilla_proofs: {"<tag>": partitions} */
	K_PARTS,
	K_PART,
	K_PROOF,
	K_MP,   /* MerkleProof {data} */
	K_DATA, /* ProofData: {"Single"|"Sub"|"Top": ...} */
	K_SINGLE,
	K_SUB,
	K_TOP,
	K_INCPATH, /* InclusionPath {path} */
	K_PATHARR,
	K_PATHELEM,
	K_RCP,
	K_COLARR,
	K_COLPROOF,
	K_COLUMN,
	K_LPARR,
	K_LP, /* LabelingProof and EncodingProof: {parents, layer_index, node} */
	K_FRARR,
	K_BYTES,
	K_COUNT
};

enum vtype { V_OBJ, V_ARR, V_FRARR, V_BYTES, V_BYTE, V_U32, V_U64, V_I64, V_STRING, V_NULL };

static const char *const vtype_name[] = {
	"an object",
	"an array",
	"an array of values",
	"an array of 32 bytes",
	"a byte 0..255",
	"an integer 0..4294967295",
	"an integer 0..18446744073709551615",
	"an integer 0..9223372036854775807",
	"a string",
	"null",
};

enum jtype { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_MAP, J_ARRAY };
static const char *const jtype_name[] = { "null",     "a boolean", "a number",
					  "a string", "an object", "an array" };

struct field {
	const char *name;
	uint8_t type, kind;
};

static const struct field f_c1[] = {
	{ "registered_proof", V_STRING, 0 },
	{ "vanilla_proofs", V_OBJ, K_VP },
	{ "comm_r", V_BYTES, 0 },
	{ "comm_d", V_BYTES, 0 },
	{ "replica_id", V_BYTES, 0 },
	{ "seed", V_BYTES, 0 },
	{ "ticket", V_BYTES, 0 },
};
enum { C1_REGISTERED, C1_VANILLA, C1_COMM_R, C1_COMM_D, C1_REPLICA_ID, C1_SEED, C1_TICKET };
static const struct field f_wrapper[] = {
	{ "SectorNum", V_I64, 0 },
	{ "Phase1Out", V_STRING, 0 },
	{ "SectorSize", V_U64, 0 },
};
enum { W_NUM, W_OUT, W_SIZE };
static const struct field f_vp[C1_SIZES] = {
	{ "StackedDrg2KiBV1", V_ARR, K_PARTS },   { "StackedDrg8MiBV1", V_ARR, K_PARTS },
	{ "StackedDrg512MiBV1", V_ARR, K_PARTS }, { "StackedDrg32GiBV1", V_ARR, K_PARTS },
	{ "StackedDrg64GiBV1", V_ARR, K_PARTS },
};
static const struct field f_proof[] = {
	{ "comm_d_proofs", V_OBJ, K_MP },          { "comm_r_last_proof", V_OBJ, K_MP },
	{ "replica_column_proofs", V_OBJ, K_RCP }, { "labeling_proofs", V_ARR, K_LPARR },
	{ "encoding_proof", V_OBJ, K_LP },
};
enum { P_COMM_D, P_COMM_R_LAST, P_RCP, P_LABELING, P_ENCODING };
static const struct field f_mp[] = { { "data", V_OBJ, K_DATA } };
static const struct field f_data[] = {
	{ "Single", V_OBJ, K_SINGLE },
	{ "Sub", V_OBJ, K_SUB },
	{ "Top", V_OBJ, K_TOP },
};
static const struct field f_single[] = {
	{ "root", V_BYTES, 0 },
	{ "leaf", V_BYTES, 0 },
	{ "path", V_OBJ, K_INCPATH },
};
static const struct field f_sub[] = {
	{ "base_proof", V_OBJ, K_INCPATH },
	{ "sub_proof", V_OBJ, K_INCPATH },
	{ "root", V_BYTES, 0 },
	{ "leaf", V_BYTES, 0 },
};
static const struct field f_top[] = {
	{ "base_proof", V_OBJ, K_INCPATH },
	{ "sub_proof", V_OBJ, K_INCPATH },
	{ "top_proof", V_OBJ, K_INCPATH },
	{ "root", V_BYTES, 0 },
	{ "leaf", V_BYTES, 0 },
};
static const struct field f_incpath[] = { { "path", V_ARR, K_PATHARR } };
static const struct field f_pathelem[] = { { "hashes", V_FRARR, 0 }, { "index", V_U64, 0 } };
static const struct field f_rcp[] = {
	{ "c_x", V_OBJ, K_COLPROOF },
	{ "drg_parents", V_ARR, K_COLARR },
	{ "exp_parents", V_ARR, K_COLARR },
};
static const struct field f_colproof[] = {
	{ "column", V_OBJ, K_COLUMN },
	{ "inclusion_proof", V_OBJ, K_MP },
};
static const struct field f_column[] = {
	{ "index", V_U32, 0 },
	{ "rows", V_FRARR, 0 },
	{ "_h", V_NULL, 0 },
};
static const struct field f_lp[] = {
	{ "parents", V_FRARR, 0 },
	{ "layer_index", V_U32, 0 },
	{ "node", V_U64, 0 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* Objects: their fields. Arrays: fields = NULL, elem the element type. */
static const struct {
	const struct field *fields;
	uint8_t nfields;
	uint8_t elem_type, elem_kind;
	const char *noun; /* arrays: what the elements are */
} schema[K_COUNT] = {
	[K_ROOT] = { f_c1, N(f_c1), 0, 0, NULL },
	[K_C1] = { f_c1, N(f_c1), 0, 0, NULL },
	[K_WRAPPER] = { f_wrapper, N(f_wrapper), 0, 0, NULL },
	[K_VP] = { f_vp, N(f_vp), 0, 0, NULL },
	[K_PARTS] = { NULL, 0, V_ARR, K_PART, "partitions" },
	[K_PART] = { NULL, 0, V_OBJ, K_PROOF, "proofs" },
	[K_PROOF] = { f_proof, N(f_proof), 0, 0, NULL },
	[K_MP] = { f_mp, N(f_mp), 0, 0, NULL },
	[K_DATA] = { f_data, N(f_data), 0, 0, NULL },
	[K_SINGLE] = { f_single, N(f_single), 0, 0, NULL },
	[K_SUB] = { f_sub, N(f_sub), 0, 0, NULL },
	[K_TOP] = { f_top, N(f_top), 0, 0, NULL },
	[K_INCPATH] = { f_incpath, N(f_incpath), 0, 0, NULL },
	[K_PATHARR] = { NULL, 0, V_OBJ, K_PATHELEM, "path elements" },
	[K_PATHELEM] = { f_pathelem, N(f_pathelem), 0, 0, NULL },
	[K_RCP] = { f_rcp, N(f_rcp), 0, 0, NULL },
	[K_COLARR] = { NULL, 0, V_OBJ, K_COLPROOF, "column proofs" },
	[K_COLPROOF] = { f_colproof, N(f_colproof), 0, 0, NULL },
	[K_COLUMN] = { f_column, N(f_column), 0, 0, NULL },
	[K_LPARR] = { NULL, 0, V_OBJ, K_LP, "labeling proofs" },
	[K_LP] = { f_lp, N(f_lp), 0, 0, NULL },
	[K_FRARR] = { NULL, 0, V_BYTES, 0, "values" },
	[K_BYTES] = { NULL, 0, V_BYTE, 0, "bytes" },
};

/* ---- the reader ---- */

#define MAX_DEPTH 24
/* Base64 characters decoded per step (a multiple of 4): 48 KiB of JSON. */
#define B64_CHUNK 65536

struct frame {
	uint8_t kind;
	int8_t key;      /* objects: the field being read, -1 between fields */
	uint32_t seen;   /* objects: one bit per field read */
	uint32_t n, max; /* arrays: elements begun, elements allowed */
	int8_t col;      /* column proofs and below: -1 for c_x, else the parent 0..13 */
	uint8_t slot;    /* LP: layer 0..L-1, L for encoding_proof; COLARR: its first parent */
	uint8_t tree;    /* MerkleProof and below: 0 tree D, 1 trees C/R */
	uint8_t arity;   /* inclusion paths and below */
	uint16_t lvl0, nlev, sib0, level;
	zkp_path *path;      /* MerkleProof and below: where the path goes */
	zkp_fr *root, *leaf; /* MerkleProof and below; NULL: checked, not kept */
	zkp_fr *dst;         /* FRARR: element 0's slot; NULL: checked, not kept */
	uint8_t bytes[32];   /* BYTES */
};

struct reader {
	zkp_porep_c1 *c1;
	zkp_error *err;
	int rc;
	bool inner; /* reading the JSON inside a wrapper's Phase1Out */
	bool in_part, in_proof;
	int size;       /* vanilla_proofs tag's size index; -1 before the tag */
	int proof_size; /* registered_proof's; -1 before it */
	int ni;
	zkp_tree_shape td, tcr;
	unsigned cap;  /* partitions c1->ch has room for */
	unsigned k, i; /* partition and challenge being read */
	zkp_porep_c1_challenge *cur;
	struct {
		zkp_fr parent_root[ZKP_POREP_PARENTS];
		uint32_t layer[ZKP_POREP_MAX_LAYERS + 1];
		uint64_t node[ZKP_POREP_MAX_LAYERS + 1];
		/* labeling proofs' parents, then the encoding proof's */
		zkp_fr lparents[ZKP_POREP_MAX_LAYERS + 1][ZKP_POREP_LABEL_PARENTS];
	} ps;
	/* Skipping an unknown field's value: skip_depth counts the objects
	 * and arrays of it still open. */
	bool skipping;
	unsigned skip_depth;
	int depth;
	struct frame f[MAX_DEPTH];
};

static bool is_array(uint8_t kind) { return schema[kind].fields == NULL; }

static void render_key(char *out, size_t n, const char *s, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 2 < n && i < 48; i++)
		out[o++] = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' ? s[i] : '?';
	if (len > 48 && o + 4 < n) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
}

/* The JSON path of the innermost frame; with here, including the field or
 * element it is reading. */
static void render(const struct reader *rd, bool here, char *out, size_t n)
{
	size_t o = 0;
	out[0] = 0;
	for (int d = 0; d < rd->depth && o < n; d++) {
		const struct frame *f = &rd->f[d];
		if (d == rd->depth - 1 && !here)
			break;
		int w = 0;
		if (is_array(f->kind)) {
			if (f->n)
				w = snprintf(out + o, n - o, "[%u]", f->n - 1);
		} else if (f->key >= 0 && f->kind != K_VP) {
			w = snprintf(out + o, n - o, "%s%s", o ? "." : "",
				     schema[f->kind].fields[f->key].name);
		}
		if (w > 0)
			o += (size_t)w;
	}
	if (o >= n)
		o = n - 1;
	out[o] = 0;
}

enum { AT_FRAME, AT_VALUE, AT_NONE }; /* which path an error names */

/* Records the first error, naming the JSON path (AT_FRAME: the innermost
 * frame's; AT_VALUE: the field or element it is reading; AT_NONE: the
 * message names what it needs) and the partition and challenge; returns
 * 0 so YAJL stops. */
__attribute__((format(printf, 4, 5))) static int fail(struct reader *rd, int code, int at,
						      const char *fmt, ...)
{
	if (rd->rc)
		return 0;
	char path[320], what[320], where[64] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (at == AT_NONE) {
		zkp_error_set(rd->err, code, "%s%s", rd->inner ? "Phase1Out JSON: " : "", what);
		rd->rc = code;
		return 0;
	}
	render(rd, at == AT_VALUE, path, sizeof(path));
	if (rd->in_proof)
		snprintf(where, sizeof(where), " (partition %u, challenge %u)", rd->k, rd->i);
	else if (rd->in_part)
		snprintf(where, sizeof(where), " (partition %u)", rd->k);
	zkp_error_set(rd->err, code, "%s%s: %s%s", rd->inner ? "Phase1Out JSON: " : "",
		      path[0] ? path : "top level", what, where);
	rd->rc = code;
	return 0;
}

static bool nomem(struct reader *rd)
{
	fail(rd, ZKP_ERR_NOMEM, AT_FRAME, "out of memory");
	return false;
}

/* A JSON integer (no sign, fraction or exponent) up to max. */
static bool parse_uint(const char *s, size_t len, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;
	if (len == 0 || len > 20)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v > max)
		return false;
	*ret = v;
	return true;
}

static uint64_t path_index(const zkp_tree_shape *t, const zkp_path *p)
{
	uint64_t idx = 0, mul = 1;
	unsigned levels = zkp_tree_levels(t);
	for (unsigned l = 0; l < levels; l++) {
		idx += p->index[l] * mul;
		mul *= zkp_tree_level_arity(t, l);
	}
	return idx;
}

/* registered_proof and the vanilla_proofs tag must name the same size. */
static bool check_sizes(struct reader *rd)
{
	if (rd->size < 0 || rd->proof_size < 0 || rd->size == rd->proof_size)
		return true;
	fail(rd, ZKP_ERR_FORMAT, AT_NONE,
	     "vanilla_proofs is tagged %s (%s sectors) but registered_proof %s is for %s sectors",
	     rd->c1->proofs_tag, sizes[rd->size].name, rd->c1->registered_proof,
	     sizes[rd->proof_size].name);
	return false;
}

static unsigned expected_partitions(const struct reader *rd)
{
	return c1_partitions(sizes[rd->size].bytes, rd->ni);
}

static bool grow(struct reader *rd, unsigned want)
{
	zkp_porep_c1 *c1 = rd->c1;
	size_t per = c1->challenges;
	zkp_porep_c1_challenge *ch = realloc(c1->ch, want * per * sizeof(*ch));
	if (!ch)
		return nomem(rd);
	c1->ch = ch;
	zkp_fr *a = realloc(c1->comm_r_last, want * sizeof(zkp_fr));
	if (!a)
		return nomem(rd);
	c1->comm_r_last = a;
	a = realloc(c1->comm_c, want * sizeof(zkp_fr));
	if (!a)
		return nomem(rd);
	c1->comm_c = a;
	rd->cap = want;
	return true;
}

/* Opens a frame for a container value of the given kind, its context
 * taken from the frame that holds it. */
static int push(struct reader *rd, uint8_t kind)
{
	if (rd->depth == MAX_DEPTH)
		return fail(rd, ZKP_ERR_FORMAT, AT_VALUE, "nested too deeply");
	struct frame *p = rd->depth ? &rd->f[rd->depth - 1] : NULL;
	struct frame *f = &rd->f[rd->depth];
	zkp_porep_c1 *c1 = rd->c1;
	const unsigned L = c1->shape.layers;
	if (p)
		*f = *p; /* inherit the context (col, tree, path, ...) */
	else
		memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->key = -1;
	f->seen = 0;
	f->n = 0;
	f->max = 0;
	rd->depth++;
	const char *key = p && p->key >= 0 ? schema[p->kind].fields[p->key].name : "";

	switch (kind) {
	case K_PARTS:
		f->max = rd->proof_size >= 0 ? expected_partitions(rd) : C1_MAX_PARTITIONS;
		break;
	case K_PART:
		rd->k = p->n - 1;
		rd->in_part = true;
		if (rd->k >= rd->cap) {
			unsigned want = rd->proof_size >= 0 ? expected_partitions(rd)
							    : (rd->cap ? 2 * rd->cap : 1);
			if (want > C1_MAX_PARTITIONS)
				want = C1_MAX_PARTITIONS;
			if (want <= rd->k)
				want = rd->k + 1;
			if (!grow(rd, want))
				return 0;
		}
		f->max = c1->challenges;
		break;
	case K_PROOF:
		rd->i = p->n - 1;
		rd->in_proof = true;
		rd->cur = &c1->ch[(size_t)rd->k * c1->challenges + rd->i];
		memset(rd->cur, 0, sizeof(*rd->cur));
		memset(&rd->ps, 0, sizeof(rd->ps));
		break;
	case K_MP: {
		zkp_porep_c1_challenge *c = rd->cur;
		if (p->kind == K_PROOF && p->key == P_COMM_D) {
			f->tree = 0;
			f->path = &c->ch.comm_d_path;
			f->root = &c->roots[0];
			f->leaf = &c->ch.data_leaf;
		} else if (p->kind == K_PROOF) {
			f->tree = 1;
			f->path = &c->ch.comm_r_last_path;
			f->root = &c->roots[1];
			f->leaf = &c->comm_r_last_leaf;
		} else {
			f->tree = 1;
			f->path = f->col < 0 ? &c->ch.comm_c_path : &c->ch.parent_paths[f->col];
			f->root = f->col < 0 ? &c->roots[2] : &rd->ps.parent_root[f->col];
			f->leaf = NULL;
		}
		break;
	}
	case K_INCPATH: {
		const zkp_tree_shape *t = f->tree ? &rd->tcr : &rd->td;
		unsigned base = t->base_levels, a0 = t->arity[0];
		if (!strcmp(key, "sub_proof")) {
			f->lvl0 = (uint16_t)base;
			f->nlev = 1;
			f->arity = (uint8_t)t->arity[1];
			f->sib0 = (uint16_t)(base * (a0 - 1));
		} else if (!strcmp(key, "top_proof")) {
			f->lvl0 = (uint16_t)(base + 1);
			f->nlev = 1;
			f->arity = (uint8_t)t->arity[2];
			f->sib0 = (uint16_t)(base * (a0 - 1) + t->arity[1] - 1);
		} else { /* Single's path or base_proof */
			f->lvl0 = 0;
			f->nlev = (uint16_t)base;
			f->arity = (uint8_t)a0;
			f->sib0 = 0;
		}
		break;
	}
	case K_PATHARR:
		f->max = f->nlev;
		break;
	case K_PATHELEM:
		f->level = (uint16_t)(f->lvl0 + p->n - 1);
		break;
	case K_COLARR:
		f->max =
			!strcmp(key, "drg_parents") ? ZKP_POREP_DRG_PARENTS : ZKP_POREP_EXP_PARENTS;
		f->slot = f->max == ZKP_POREP_DRG_PARENTS ? 0 : ZKP_POREP_DRG_PARENTS;
		break;
	case K_COLPROOF:
		f->col = p->kind == K_RCP ? -1 : (int8_t)(p->slot + p->n - 1);
		break;
	case K_LPARR:
		f->max = L;
		break;
	case K_LP:
		f->slot = (uint8_t)(p->kind == K_LPARR ? p->n - 1 : L);
		break;
	case K_FRARR:
		if (p->kind == K_PATHELEM) {
			f->max = f->arity - 1u;
			f->dst = f->path ? &f->path->siblings[f->sib0 +
							      (f->level - f->lvl0) * f->max]
					 : NULL;
		} else if (p->kind == K_COLUMN) {
			f->max = L;
			f->dst =
				f->col < 0 ? rd->cur->column_rows : rd->cur->ch.parent_rows[f->col];
		} else { /* labeling and encoding parents: checked against the
			  * parents' columns at the proof's end */
			f->max = ZKP_POREP_LABEL_PARENTS;
			f->dst = rd->ps.lparents[p->slot];
		}
		break;
	case K_BYTES:
		f->max = 32;
		break;
	default:
		break;
	}
	return 1;
}

/* The value in the innermost frame's current field is complete. */
static void value_done(struct reader *rd)
{
	if (rd->depth) {
		struct frame *f = &rd->f[rd->depth - 1];
		if (!is_array(f->kind))
			f->key = -1;
	}
}

static int fr_value(struct reader *rd, zkp_fr *dst, const uint8_t b[32])
{
	zkp_fr tmp;
	if (zkp_fr_from_le(dst ? dst : &tmp, b))
		return fail(rd, ZKP_ERR_NOT_CANONICAL, AT_FRAME,
			    "value is not below the BLS12-381 scalar field modulus r");
	return 1;
}

/* A 32-byte array is complete: into the slot its holder says. */
static int bytes_done(struct reader *rd)
{
	const struct frame *f = &rd->f[rd->depth - 1];
	struct frame *p = &rd->f[rd->depth - 2];
	zkp_porep_c1 *c1 = rd->c1;
	if (f->n != 32)
		return fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "expected 32 bytes, found %u", f->n);
	switch (p->kind) {
	case K_FRARR:
		return fr_value(rd, p->dst ? &p->dst[p->n - 1] : NULL, f->bytes);
	case K_SINGLE:
	case K_SUB:
	case K_TOP:
		return fr_value(rd,
				schema[p->kind].fields[p->key].name[0] == 'r' ? p->root : p->leaf,
				f->bytes);
	case K_C1:
		switch (p->key) {
		case C1_COMM_R:
			memcpy(c1->comm_r, f->bytes, 32);
			return fr_value(rd, &c1->comm_r_fr, f->bytes);
		case C1_COMM_D:
			memcpy(c1->comm_d, f->bytes, 32);
			return fr_value(rd, &c1->comm_d_fr, f->bytes);
		case C1_REPLICA_ID:
			memcpy(c1->replica_id, f->bytes, 32);
			return fr_value(rd, &c1->replica_id_fr, f->bytes);
		case C1_SEED: /* randomness: any 32 bytes */
			memcpy(c1->seed, f->bytes, 32);
			return 1;
		default:
			memcpy(c1->ticket, f->bytes, 32);
			return 1;
		}
	default:
		return fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "unexpected byte array");
	}
}

static int number(struct reader *rd, uint8_t type, const char *s, size_t len)
{
	struct frame *f = &rd->f[rd->depth - 1];
	static const uint64_t max[] = {
		[V_BYTE] = 255, [V_U32] = UINT32_MAX, [V_U64] = UINT64_MAX, [V_I64] = INT64_MAX
	};
	uint64_t v;
	if (!parse_uint(s, len, max[type], &v))
		return fail(rd, ZKP_ERR_FORMAT, AT_VALUE, "expected %s, found %.*s",
			    vtype_name[type], (int)(len > 24 ? 24 : len), s);
	zkp_porep_c1_challenge *c = rd->cur;
	switch (f->kind) {
	case K_BYTES:
		f->bytes[f->n - 1] = (uint8_t)v;
		return 1;
	case K_COLUMN: /* index */
		if (f->col < 0)
			c->column_index = (uint32_t)v;
		else
			c->parent_nodes[f->col] = (uint32_t)v;
		break;
	case K_PATHELEM: /* index */
		if (v >= f->arity)
			return fail(rd, ZKP_ERR_FORMAT, AT_VALUE,
				    "%llu is not a position among %u siblings",
				    (unsigned long long)v, f->arity);
		f->path->index[f->level] = (uint8_t)v;
		break;
	case K_LP:
		if (f->key == 1)
			rd->ps.layer[f->slot] = (uint32_t)v;
		else
			rd->ps.node[f->slot] = v;
		break;
	case K_WRAPPER:
		if (f->key == W_NUM)
			rd->c1->wrapper_sector_num = (int64_t)v;
		else
			rd->c1->wrapper_sector_size = v;
		break;
	default:
		break;
	}
	value_done(rd);
	return 1;
}

static int parse_inner(struct reader *outer, const char *s, size_t len);

static int string(struct reader *rd, const char *s, size_t len)
{
	struct frame *f = &rd->f[rd->depth - 1];
	zkp_porep_c1 *c1 = rd->c1;
	if (f->kind == K_WRAPPER) {
		if (!parse_inner(rd, s, len))
			return 0;
	} else { /* registered_proof */
		char shown[64];
		render_key(shown, sizeof(shown), s, len);
		int i = c1_proof_size(s, len, &rd->ni);
		if (i < 0)
			return fail(
				rd, ZKP_ERR_FORMAT, AT_VALUE,
				"unknown proof \"%s\" (expected "
				"StackedDrg<2KiB|8MiB|512MiB|32GiB|64GiB>"
				"<V1|V1_1|V1_1_Feat_SyntheticPoRep|V1_2_Feat_NonInteractivePoRep>)",
				shown);
		memcpy(c1->registered_proof, s, len);
		c1->registered_proof[len] = 0;
		rd->proof_size = i;
		if (!check_sizes(rd))
			return 0;
	}
	value_done(rd);
	return 1;
}

/* Any value: check it is what the innermost frame expects there. */
/* One event inside a skipped value; the value ends with its last. */
static int skip_event(struct reader *rd, bool open, bool close)
{
	if (open) {
		rd->skip_depth++;
		return 1;
	}
	if (close)
		rd->skip_depth--;
	if (rd->skip_depth == 0) {
		rd->skipping = false;
		value_done(rd);
	}
	return 1;
}

static int value(struct reader *rd, enum jtype jt, const char *s, size_t len)
{
	if (rd->rc)
		return 0;
	if (rd->skipping)
		return skip_event(rd, jt == J_MAP || jt == J_ARRAY, false);
	if (rd->depth == 0) {
		if (jt != J_MAP)
			return fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "expected an object, found %s",
				    jtype_name[jt]);
		return push(rd, rd->inner ? K_C1 : K_ROOT);
	}
	struct frame *f = &rd->f[rd->depth - 1];
	uint8_t type, kind;
	if (is_array(f->kind)) {
		if (f->n == f->max) {
			int code = f->kind == K_PARTS || f->kind == K_PART ? ZKP_ERR_MISMATCH
									   : ZKP_ERR_FORMAT;
			if (f->kind == K_PARTS && rd->proof_size >= 0)
				return fail(rd, code, AT_FRAME, "more than the %u partitions of %s",
					    f->max, rd->c1->registered_proof);
			if (f->kind == K_PART)
				return fail(rd, code, AT_FRAME,
					    "more than the %u proofs of a %s partition", f->max,
					    sizes[rd->size].name);
			return fail(rd, code, AT_FRAME, "expected %u %s, found more", f->max,
				    schema[f->kind].noun);
		}
		f->n++;
		type = schema[f->kind].elem_type;
		kind = schema[f->kind].elem_kind;
	} else {
		const struct field *fd = &schema[f->kind].fields[f->key];
		type = fd->type;
		kind = fd->kind;
	}
	switch (jt) {
	case J_MAP:
		if (type == V_OBJ)
			return push(rd, kind);
		break;
	case J_ARRAY:
		if (type == V_ARR)
			return push(rd, kind);
		if (type == V_FRARR)
			return push(rd, K_FRARR);
		if (type == V_BYTES)
			return push(rd, K_BYTES);
		break;
	case J_NUMBER:
		if (type >= V_BYTE && type <= V_I64)
			return number(rd, type, s, len);
		break;
	case J_STRING:
		if (type == V_STRING)
			return string(rd, s, len);
		break;
	case J_NULL:
		if (type == V_NULL) {
			value_done(rd);
			return 1;
		}
		break;
	default:
		break;
	}
	return fail(rd, ZKP_ERR_FORMAT, AT_VALUE, "expected %s, found %s", vtype_name[type],
		    jtype_name[jt]);
}

static int set_tag(struct reader *rd, int i)
{
	zkp_porep_c1 *c1 = rd->c1;
	rd->size = i;
	snprintf(c1->proofs_tag, sizeof(c1->proofs_tag), "%s", f_vp[i].name);
	c1->sector_bytes = sizes[i].bytes;
	if (zkp_porep_shape_for_size(&c1->shape, c1->sector_bytes, NULL))
		return fail(rd, ZKP_ERR_FORMAT, AT_VALUE, "no circuit shape for %s", sizes[i].name);
	c1->challenges = c1->shape.challenges;
	zkp_porep_tree_d(&c1->shape, &rd->td);
	zkp_porep_tree_cr(&c1->shape, &rd->tcr);
	return check_sizes(rd);
}

static int key(struct reader *rd, const char *s, size_t len)
{
	if (rd->rc)
		return 0;
	if (rd->skipping)
		return 1; /* a key inside a skipped value */
	struct frame *f = &rd->f[rd->depth - 1];
	char shown[64];
	render_key(shown, sizeof(shown), s, len);
	if (f->kind == K_ROOT) {
		/* The first known key decides: a wrapper's or a C1's. */
		for (unsigned j = 0; j < N(f_wrapper); j++)
			if (strlen(f_wrapper[j].name) == len && !memcmp(f_wrapper[j].name, s, len))
				f->kind = K_WRAPPER;
		for (unsigned j = 0; j < N(f_c1) && f->kind == K_ROOT; j++)
			if (strlen(f_c1[j].name) == len && !memcmp(f_c1[j].name, s, len))
				f->kind = K_C1;
	}
	const struct field *fields = schema[f->kind].fields;
	int idx = -1;
	for (unsigned j = 0; j < schema[f->kind].nfields; j++)
		if (strlen(fields[j].name) == len && !memcmp(fields[j].name, s, len))
			idx = (int)j;
	if (idx < 0) {
		if (f->kind == K_VP)
			return fail(rd, ZKP_ERR_FORMAT, AT_FRAME,
				    "unknown sector size tag \"%s\" (expected StackedDrg2KiBV1, "
				    "StackedDrg8MiBV1, StackedDrg512MiBV1, StackedDrg32GiBV1 or "
				    "StackedDrg64GiBV1)",
				    shown);
		if (f->kind == K_DATA)
			return fail(rd, ZKP_ERR_FORMAT, AT_FRAME,
				    "unknown variant \"%s\" (expected Single, Sub or Top)", shown);
		/* serde ignores a field its struct does not have: so do we. */
		char path[256];
		render(rd, false, path, sizeof(path));
		zkp_log(ZKP_LOG_DEBUG, "C1: unknown field \"%s\" in %s skipped", shown,
			path[0] ? path : "the top object");
		rd->skipping = true;
		rd->skip_depth = 0;
		return 1;
	}
	if (f->seen & (1u << idx))
		return fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "duplicate field \"%s\"", shown);
	if ((f->kind == K_VP || f->kind == K_DATA) && f->seen)
		return fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "\"%s\" after another variant", shown);
	f->seen |= 1u << idx;
	f->key = (int8_t)idx;
	if (f->kind == K_VP)
		return set_tag(rd, idx);
	if (f->kind == K_DATA) {
		const zkp_tree_shape *t = f->tree ? &rd->tcr : &rd->td;
		int want = t->arity[2] ? 2 : t->arity[1] ? 1 : 0;
		if (idx != want) {
			char tree[16];
			zkp_porep_tree_name(tree, &rd->c1->shape);
			f->key = -1;
			if (!f->tree)
				return fail(rd, ZKP_ERR_FORMAT, AT_FRAME,
					    "a %s proof, but tree D (binary) of %s sectors needs "
					    "Single",
					    f_data[idx].name, sizes[rd->size].name);
			return fail(rd, ZKP_ERR_FORMAT, AT_FRAME,
				    "a %s proof, but trees C/R (%s) of %s sectors need %s",
				    f_data[idx].name, tree, sizes[rd->size].name,
				    f_data[want].name);
		}
	}
	return 1;
}

/* Per challenge: the nodes and layers the labeling and encoding proofs
 * name, every inclusion path's leaf index against the node it opens, and
 * every root inside the partition. */
static int proof_done(struct reader *rd)
{
	zkp_porep_c1 *c1 = rd->c1;
	zkp_porep_c1_challenge *c = rd->cur;
	const unsigned L = c1->shape.layers;
	uint64_t node = rd->ps.node[0];

	for (unsigned l = 0; l <= L; l++) {
		unsigned want = l < L ? l + 1 : L;
		if (rd->ps.layer[l] != want) {
			char what[48];
			if (l < L)
				snprintf(what, sizeof(what), "labeling_proofs[%u].layer_index", l);
			else
				snprintf(what, sizeof(what), "encoding_proof.layer_index");
			return fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "%s is %u, expected %u", what,
				    rd->ps.layer[l], want);
		}
	}
	for (unsigned l = 1; l <= L; l++)
		if (rd->ps.node[l] != node) {
			char what[48];
			if (l < L)
				snprintf(what, sizeof(what), "labeling_proofs[%u].node", l);
			else
				snprintf(what, sizeof(what), "encoding_proof.node");
			return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
				    "%s %llu differs from labeling_proofs[0].node %llu", what,
				    (unsigned long long)rd->ps.node[l], (unsigned long long)node);
		}
	/* The 37 parents of layer l are the parents' columns expanded: layer 1
	 * the 6 DRG rows six times and the first again; later layers the 6
	 * DRG rows of this layer and the 8 expander rows of the previous one,
	 * twice, then the first 9. The encoding proof repeats the last layer. */
	for (unsigned l = 0; l <= L; l++) {
		unsigned layer = l < L ? l : L - 1, n = layer == 0 ? ZKP_POREP_DRG_PARENTS : ZKP_POREP_PARENTS;
		for (unsigned k = 0; k < ZKP_POREP_LABEL_PARENTS; k++) {
			unsigned q = k % n;
			const zkp_fr *want = q < ZKP_POREP_DRG_PARENTS ? &c->ch.parent_rows[q][layer]
								     : &c->ch.parent_rows[q][layer - 1];
			if (!zkp_fr_eq(&rd->ps.lparents[l][k], want)) {
				char what[48];
				if (l < L)
					snprintf(what, sizeof(what), "labeling_proofs[%u].parents[%u]", l, k);
				else
					snprintf(what, sizeof(what), "encoding_proof.parents[%u]", k);
				return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
					    "%s is not %s parent %u's row %u", what,
					    q < ZKP_POREP_DRG_PARENTS ? "DRG" : "expander",
					    q < ZKP_POREP_DRG_PARENTS ? q : q - ZKP_POREP_DRG_PARENTS,
					    q < ZKP_POREP_DRG_PARENTS ? layer : layer - 1);
			}
		}
	}
	if (node != c->column_index)
		return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
			    "labeling_proofs[0].node %llu differs from "
			    "replica_column_proofs.c_x.column.index %u",
			    (unsigned long long)node, c->column_index);
	if (node >= c1->shape.nodes)
		return fail(rd, ZKP_ERR_FORMAT, AT_FRAME,
			    "node %llu is past the %llu nodes of a %s sector",
			    (unsigned long long)node, (unsigned long long)c1->shape.nodes,
			    sizes[rd->size].name);
	c->ch.node = node;

	static const char *const what[] = { "comm_d_proofs", "comm_r_last_proof",
					    "replica_column_proofs.c_x.inclusion_proof" };
	const zkp_path *own[] = { &c->ch.comm_d_path, &c->ch.comm_r_last_path, &c->ch.comm_c_path };
	for (unsigned j = 0; j < 3; j++) {
		uint64_t at = path_index(j ? &rd->tcr : &rd->td, own[j]);
		if (at != node)
			return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
				    "%s opens leaf %llu, but the challenged node is %llu", what[j],
				    (unsigned long long)at, (unsigned long long)node);
	}
	for (unsigned p = 0; p < ZKP_POREP_PARENTS; p++) {
		const char *arr = p < ZKP_POREP_DRG_PARENTS ? "drg_parents" : "exp_parents";
		unsigned j = p < ZKP_POREP_DRG_PARENTS ? p : p - ZKP_POREP_DRG_PARENTS;
		uint64_t at = path_index(&rd->tcr, &c->ch.parent_paths[p]);
		if (at != c->parent_nodes[p])
			return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
				    "replica_column_proofs.%s[%u].inclusion_proof opens leaf %llu, "
				    "but its column.index is %u",
				    arr, j, (unsigned long long)at, c->parent_nodes[p]);
		if (!zkp_fr_eq(&rd->ps.parent_root[p], &c->roots[2]))
			return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
				    "replica_column_proofs.%s[%u].inclusion_proof.root differs "
				    "from c_x's (comm_c)",
				    arr, j);
	}
	if (rd->i == 0) {
		c1->comm_r_last[rd->k] = c->roots[1];
		c1->comm_c[rd->k] = c->roots[2];
	} else if (!zkp_fr_eq(&c1->comm_r_last[rd->k], &c->roots[1])) {
		return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
			    "comm_r_last_proof.root differs from the partition's first proof's");
	} else if (!zkp_fr_eq(&c1->comm_c[rd->k], &c->roots[2])) {
		return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
			    "replica_column_proofs.c_x.inclusion_proof.root differs from the "
			    "partition's first proof's");
	}
	rd->in_proof = false;
	return 1;
}

/* The whole C1 is read: what ties the parts together. */
static int c1_done(struct reader *rd)
{
	zkp_porep_c1 *c1 = rd->c1;
	const unsigned P = c1->partitions, C = c1->challenges;
	unsigned want = expected_partitions(rd);
	if (P != want)
		return fail(rd, ZKP_ERR_MISMATCH, AT_NONE,
			    "vanilla_proofs has %u partitions; %s has %u", P, c1->registered_proof,
			    want);
	for (unsigned k = 0; k < P; k++)
		for (unsigned i = 0; i < C; i++)
			if (!zkp_fr_eq(&c1->ch[(size_t)k * C + i].roots[0], &c1->comm_d_fr))
				return fail(rd, ZKP_ERR_MISMATCH, AT_NONE,
					    "vanilla_proofs[%u][%u].comm_d_proofs.root differs "
					    "from comm_d",
					    k, i);
	const zkp_poseidon_consts *pc;
	if (zkp_poseidon_consts_get(&pc, 2))
		return nomem(rd);
	for (unsigned k = 0; k < P; k++) {
		zkp_fr in[2] = { c1->comm_c[k], c1->comm_r_last[k] }, r;
		zkp_poseidon_hash(&r, pc, in);
		if (!zkp_fr_eq(&r, &c1->comm_r_fr))
			return fail(rd, ZKP_ERR_MISMATCH, AT_NONE,
				    "comm_r is not Poseidon(comm_c, comm_r_last) of partition %u",
				    k);
	}
	/* Exact sizes, and the challenges contiguous as zkp_porep_witness
	 * wants them. */
	if (rd->cap > P && !grow(rd, P))
		return 0;
	c1->wit = malloc((size_t)P * C * sizeof(*c1->wit));
	if (!c1->wit)
		return nomem(rd);
	for (size_t j = 0; j < (size_t)P * C; j++)
		c1->wit[j] = c1->ch[j].ch;
	return 1;
}

static int end(struct reader *rd)
{
	if (rd->rc)
		return 0;
	if (rd->skipping)
		return skip_event(rd, false, true);
	struct frame *f = &rd->f[rd->depth - 1];
	zkp_porep_c1 *c1 = rd->c1;
	if (!is_array(f->kind)) {
		unsigned nf = schema[f->kind].nfields;
		if (f->kind == K_VP || f->kind == K_DATA) {
			if (!f->seen)
				return fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "empty, expected one %s",
					    f->kind == K_VP ? "sector size tag"
							    : "of Single, Sub or Top");
		} else if (f->kind == K_ROOT) {
			return fail(rd, ZKP_ERR_FORMAT, AT_FRAME,
				    "no field of a C1 or of its wrapper (an empty object, or "
				    "only unknown fields)");
		} else {
			for (unsigned j = 0; j < nf; j++)
				if (!(f->seen & (1u << j)))
					return fail(rd, ZKP_ERR_FORMAT, AT_FRAME,
						    "missing field \"%s\"",
						    schema[f->kind].fields[j].name);
		}
	} else if (f->kind == K_BYTES) {
		if (!bytes_done(rd))
			return 0;
	} else if (f->kind == K_PART) {
		if (f->n != f->max)
			return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME,
				    "%u proofs, but %s partitions have %u", f->n,
				    sizes[rd->size].name, f->max);
	} else if (f->kind == K_PARTS) {
		if (f->n == 0)
			return fail(rd, ZKP_ERR_MISMATCH, AT_FRAME, "no partitions");
	} else if (f->n != f->max) {
		return fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "expected %u %s, found %u", f->max,
			    schema[f->kind].noun, f->n);
	}

	switch (f->kind) {
	case K_PROOF:
		if (!proof_done(rd))
			return 0;
		break;
	case K_PART:
		rd->in_part = false;
		break;
	case K_PARTS:
		c1->partitions = f->n;
		break;
	case K_C1:
		if (!c1_done(rd))
			return 0;
		break;
	case K_WRAPPER:
		if (c1->wrapper_sector_size != c1->sector_bytes)
			return fail(rd, ZKP_ERR_MISMATCH, AT_NONE,
				    "SectorSize %llu disagrees with the C1's %s (%llu bytes)",
				    (unsigned long long)c1->wrapper_sector_size, c1->proofs_tag,
				    (unsigned long long)c1->sector_bytes);
		break;
	default:
		break;
	}
	rd->depth--;
	value_done(rd);
	return 1;
}

static int cb_null(void *ctx) { return value(ctx, J_NULL, NULL, 0); }
static int cb_boolean(void *ctx, int v)
{
	(void)v;
	return value(ctx, J_BOOL, NULL, 0);
}
static int cb_number(void *ctx, const char *s, size_t len) { return value(ctx, J_NUMBER, s, len); }
static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	return value(ctx, J_STRING, (const char *)s, len);
}
static int cb_start_map(void *ctx) { return value(ctx, J_MAP, NULL, 0); }
static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
	return key(ctx, (const char *)s, len);
}
static int cb_end(void *ctx) { return end(ctx); }
static int cb_start_array(void *ctx) { return value(ctx, J_ARRAY, NULL, 0); }

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_boolean,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_map_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

static void reader_init(struct reader *rd, zkp_porep_c1 *c1, zkp_error *err, bool inner)
{
	memset(rd, 0, sizeof(*rd));
	rd->c1 = c1;
	rd->err = err;
	rd->inner = inner;
	rd->size = -1;
	rd->proof_size = -1;
}

/* YAJL's verdict on a chunk starting at byte base: 0, or the error. */
static int yajl_result(struct reader *rd, yajl_handle h, yajl_status st, size_t base, bool complete)
{
	if (st == yajl_status_ok)
		return 0;
	if (rd->rc)
		return rd->rc;
	if (st == yajl_status_client_canceled) { /* every refusal records its error */
		fail(rd, ZKP_ERR_FORMAT, AT_VALUE, "refused");
		return rd->rc;
	}
	unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
	char text[160] = "";
	if (msg) {
		snprintf(text, sizeof(text), "%s", (const char *)msg);
		text[strcspn(text, "\n")] = 0;
		yajl_free_error(h, msg);
	}
	size_t at = base + yajl_get_bytes_consumed(h);
	if (complete)
		fail(rd, ZKP_ERR_TRUNCATED, AT_VALUE, "the input ends early, after %zu bytes",
		     base);
	else
		fail(rd, ZKP_ERR_FORMAT, AT_VALUE, "not JSON at byte %zu: %s", at, text);
	return rd->rc;
}

/* The base64 in a wrapper's Phase1Out, decoded a chunk at a time into a
 * second parser (the JSON inside never exists whole). */
static int parse_inner(struct reader *outer, const char *s, size_t len)
{
	if (len == 0)
		return fail(outer, ZKP_ERR_FORMAT, AT_VALUE, "empty");
	if (len % 4)
		return fail(outer, ZKP_ERR_FORMAT, AT_VALUE,
			    "%zu base64 characters, not a multiple of 4", len);
	size_t pad = s[len - 1] == '=' ? (s[len - 2] == '=' ? 2 : 1) : 0;
	for (size_t j = 0; j < len - pad; j++) {
		char c = s[j];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '+' || c == '/'))
			return fail(outer, ZKP_ERR_FORMAT, AT_VALUE,
				    "character %zu (0x%02x) is not standard base64", j,
				    (unsigned char)c);
	}
	struct reader *rd = malloc(sizeof(*rd));
	uint8_t *buf = malloc(B64_CHUNK / 4 * 3);
	yajl_handle h = rd ? yajl_alloc(&callbacks, NULL, rd) : NULL;
	int rc = 0;
	if (!rd || !buf || !h) {
		fail(outer, ZKP_ERR_NOMEM, AT_VALUE, "out of memory");
		goto out;
	}
	reader_init(rd, outer->c1, outer->err, true);
	size_t base = 0;
	for (size_t off = 0; off < len && !rc; off += B64_CHUNK) {
		size_t n = len - off < B64_CHUNK ? len - off : B64_CHUNK;
		int got = EVP_DecodeBlock(buf, (const unsigned char *)s + off, (int)n);
		if (got < 0) {
			fail(outer, ZKP_ERR_FORMAT, AT_VALUE, "not base64 near character %zu", off);
			goto out;
		}
		if (off + n == len)
			got -= (int)pad;
		rc = yajl_result(rd, h, yajl_parse(h, buf, (size_t)got), base, false);
		base += (size_t)got;
	}
	if (!rc)
		rc = yajl_result(rd, h, yajl_complete_parse(h), base, true);
	if (rc)
		outer->rc = rc; /* the message names Phase1Out already */
out:
	if (h)
		yajl_free(h);
	free(buf);
	free(rd);
	return outer->rc ? 0 : 1;
}

void zkp_porep_c1_free(zkp_porep_c1 *c1)
{
	if (!c1)
		return;
	free(c1->comm_r_last);
	free(c1->comm_c);
	free(c1->ch);
	free(c1->wit);
	free(c1);
}

int zkp_porep_c1_parse(zkp_porep_c1 **ret, const uint8_t *buf, size_t len, zkp_error *err)
{
	*ret = NULL;
	if (len == 0)
		return zkp_error_set(err, ZKP_ERR_TRUNCATED, "C1: empty input");
	zkp_porep_c1 *c1 = calloc(1, sizeof(*c1));
	struct reader *rd = malloc(sizeof(*rd));
	yajl_handle h = rd ? yajl_alloc(&callbacks, NULL, rd) : NULL;
	int rc;
	if (!c1 || !rd || !h) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "C1: out of memory");
		goto out;
	}
	reader_init(rd, c1, err, false);
	/* One call: the input is in memory already, and YAJL hands strings
	 * (a wrapper's base64 above all) straight from it without a copy. */
	rc = yajl_result(rd, h, yajl_parse(h, buf, len), 0, false);
	if (!rc)
		rc = yajl_result(rd, h, yajl_complete_parse(h), len, true);
	if (!rc && (!c1->wit || rd->depth)) {
		fail(rd, ZKP_ERR_FORMAT, AT_FRAME, "no C1 in the input");
		rc = rd->rc;
	}
out:
	if (h)
		yajl_free(h);
	free(rd);
	if (rc) {
		zkp_porep_c1_free(c1);
		return rc;
	}
	*ret = c1;
	return 0;
}

int zkp_porep_c1_load_fd(zkp_porep_c1 **ret, int fd, const char *name, zkp_error *err)
{
	*ret = NULL;
	uint8_t *buf;
	size_t len;
	int rc = zkp_file_read_fd(fd, name, &buf, &len, err);
	if (rc)
		return rc;
	zkp_error e = { 0 };
	rc = zkp_porep_c1_parse(ret, buf, len, &e);
	if (rc)
		zkp_error_set(err, rc, "%s: %s", name, zkp_error_text(&e, rc));
	free(buf);
	return rc;
}

int zkp_porep_c1_load(zkp_porep_c1 **ret, const char *path, zkp_error *err)
{
	*ret = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zkp_error_set(err, ZKP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	int rc = zkp_porep_c1_load_fd(ret, fd, path, err);
	close(fd);
	return rc;
}

void zkp_porep_c1_witness(const zkp_porep_c1 *c1, unsigned k, zkp_porep_witness *ret)
{
	ret->replica_id = c1->replica_id_fr;
	ret->comm_d = c1->comm_d_fr;
	ret->comm_r = c1->comm_r_fr;
	ret->comm_r_last = c1->comm_r_last[k];
	ret->comm_c = c1->comm_c[k];
	ret->challenges = &c1->wit[(size_t)k * c1->challenges];
}

/*
 * snarkjs JSON: proof.json, public.json, verification_key.json
 * (docs/formats.md, 'snarkjs JSON'). Numbers are decimal strings
 * of canonical integers; G1 points are [x, y, z], G2 points
 * [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]; z = 1 is affine, z = 0 the
 * point at infinity, anything else Jacobian (x/z^2, y/z^3) as snarkjs
 * reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "groth16_int.h"

/* ---- decimal integers ---- */

/* Up to nlimbs little-endian limbs from a string of decimal digits.
 * ZKP_ERR_FORMAT for anything but digits (or an empty string),
 * ZKP_ERR_NOT_CANONICAL when the value does not fit. */
static int dec_to_limbs(uint64_t *out, size_t nlimbs, const char *s)
{
	memset(out, 0, nlimbs * sizeof(*out));
	if (!*s)
		return ZKP_ERR_FORMAT;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return ZKP_ERR_FORMAT;
		unsigned __int128 carry = (unsigned)(*s - '0');
		for (size_t i = 0; i < nlimbs; i++) {
			unsigned __int128 v = (unsigned __int128)out[i] * 10 + carry;
			out[i] = (uint64_t)v;
			carry = v >> 64;
		}
		if (carry)
			return ZKP_ERR_NOT_CANONICAL;
	}
	return 0;
}

/* Decimal digits of an nlimbs-limb integer (nlimbs <= 6) into out, which
 * holds at least 120 bytes. */
static void limbs_to_dec(char *out, const uint64_t *in, size_t nlimbs)
{
	uint64_t t[ZKP_FP_LIMBS];
	memcpy(t, in, nlimbs * sizeof(*t));
	char rev[128];
	size_t n = 0;
	for (;;) {
		/* t /= 10^19, remainder in rem: 19 digits at a time. */
		const uint64_t base = UINT64_C(10000000000000000000);
		unsigned __int128 rem = 0;
		bool zero = true;
		for (size_t i = nlimbs; i-- > 0;) {
			unsigned __int128 cur = (rem << 64) | t[i];
			t[i] = (uint64_t)(cur / base);
			rem = cur % base;
			zero = zero && !t[i];
		}
		uint64_t r = (uint64_t)rem;
		for (int k = 0; k < 19; k++) {
			rev[n++] = (char)('0' + r % 10);
			r /= 10;
			if (zero && !r)
				break;
		}
		if (zero)
			break;
	}
	while (n > 1 && rev[n - 1] == '0')
		n--;
	for (size_t i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	out[n] = 0;
}

/* ---- reading ---- */

struct ctx {
	const char *name;
	zkp_error *err;
};

static int bad(const struct ctx *c, int code, const char *field, const char *what)
{
	return zkp_error_set(c->err, code, "%s: field %s: %s", c->name, field, what);
}

static int num_limbs(uint64_t *out, size_t nlimbs, json_t *v, const struct ctx *c,
		     const char *field)
{
	char buf[32];
	const char *s;
	if (json_is_string(v)) {
		s = json_string_value(v);
	} else if (json_is_integer(v) && json_integer_value(v) >= 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		s = buf;
	} else {
		return bad(c, ZKP_ERR_FORMAT, field, "expected a decimal string");
	}
	int rc = dec_to_limbs(out, nlimbs, s);
	if (rc == ZKP_ERR_FORMAT)
		return bad(c, rc, field, "not a decimal integer");
	if (rc)
		return bad(c, rc, field, "value is not below the modulus");
	return 0;
}

static int num_fp(zkp_fp *r, json_t *v, const struct ctx *c, const char *field)
{
	uint64_t l[ZKP_FP_LIMBS];
	int rc = num_limbs(l, ZKP_FP_LIMBS, v, c, field);
	if (rc)
		return rc;
	if (zkp_fp_from_limbs(r, l))
		return bad(c, ZKP_ERR_NOT_CANONICAL, field, "value is not below the modulus p");
	return 0;
}

static int num_fr(zkp_fr *r, json_t *v, const struct ctx *c, const char *field)
{
	uint64_t l[ZKP_FR_LIMBS];
	int rc = num_limbs(l, ZKP_FR_LIMBS, v, c, field);
	if (rc)
		return rc;
	if (zkp_fr_from_limbs(r, l))
		return bad(c, ZKP_ERR_NOT_CANONICAL, field, "value is not below the modulus r");
	return 0;
}

static int num_fp2(zkp_fp2 *r, json_t *v, const struct ctx *c, const char *field)
{
	char f[96];
	if (!json_is_array(v) || json_array_size(v) != 2)
		return bad(c, ZKP_ERR_FORMAT, field, "expected [c0, c1]");
	snprintf(f, sizeof(f), "%.80s[0]", field);
	int rc = num_fp(&r->c0, json_array_get(v, 0), c, f);
	if (rc)
		return rc;
	snprintf(f, sizeof(f), "%.80s[1]", field);
	return num_fp(&r->c1, json_array_get(v, 1), c, f);
}

static int get_g1(zkp_g1_affine *r, json_t *v, const struct ctx *c, const char *field)
{
	char f[96];
	zkp_fp x, y, z;
	if (!json_is_array(v) || json_array_size(v) != 3)
		return bad(c, ZKP_ERR_FORMAT, field, "expected a G1 point [x, y, z]");
	zkp_fp *co[3] = { &x, &y, &z };
	for (int i = 0; i < 3; i++) {
		snprintf(f, sizeof(f), "%.80s[%d]", field, i);
		int rc = num_fp(co[i], json_array_get(v, (size_t)i), c, f);
		if (rc)
			return rc;
	}
	if (zkp_fp_is_zero(&z)) {
		memset(r, 0, sizeof(*r));
		return 0;
	}
	zkp_g1 j = { x, y, z };
	zkp_g1_to_affine(r, &j);
	/* (0, 0) is infinity in memory but not a point of the curve. */
	if (zkp_g1_affine_is_infinity(r) || !zkp_g1_affine_is_on_curve(r))
		return bad(c, ZKP_ERR_NOT_ON_CURVE, field, zkp_strerror(ZKP_ERR_NOT_ON_CURVE));
	if (!zkp_g1_affine_in_subgroup(r))
		return bad(c, ZKP_ERR_NOT_IN_SUBGROUP, field,
			   zkp_strerror(ZKP_ERR_NOT_IN_SUBGROUP));
	return 0;
}

static int get_g2(zkp_g2_affine *r, json_t *v, const struct ctx *c, const char *field)
{
	char f[96];
	zkp_fp2 x, y, z;
	if (!json_is_array(v) || json_array_size(v) != 3)
		return bad(c, ZKP_ERR_FORMAT, field,
			   "expected a G2 point [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]");
	zkp_fp2 *co[3] = { &x, &y, &z };
	for (int i = 0; i < 3; i++) {
		snprintf(f, sizeof(f), "%.80s[%d]", field, i);
		int rc = num_fp2(co[i], json_array_get(v, (size_t)i), c, f);
		if (rc)
			return rc;
	}
	if (zkp_fp2_is_zero(&z)) {
		memset(r, 0, sizeof(*r));
		return 0;
	}
	zkp_g2 j = { x, y, z };
	zkp_g2_to_affine(r, &j);
	if (zkp_g2_affine_is_infinity(r) || !zkp_g2_affine_is_on_curve(r))
		return bad(c, ZKP_ERR_NOT_ON_CURVE, field, zkp_strerror(ZKP_ERR_NOT_ON_CURVE));
	if (!zkp_g2_affine_in_subgroup(r))
		return bad(c, ZKP_ERR_NOT_IN_SUBGROUP, field,
			   zkp_strerror(ZKP_ERR_NOT_IN_SUBGROUP));
	return 0;
}

/* protocol and curve, when present, must be groth16 and bls12381. */
static int check_kind(json_t *root, const struct ctx *c, bool required)
{
	json_t *p = json_object_get(root, "protocol"), *cv = json_object_get(root, "curve");
	if ((p || required) && (!json_is_string(p) || strcmp(json_string_value(p), "groth16")))
		return bad(c, ZKP_ERR_UNSUPPORTED, "protocol",
			   "only groth16 is supported");
	if ((cv || required) && (!json_is_string(cv) || strcmp(json_string_value(cv), "bls12381")))
		return bad(c, ZKP_ERR_WRONG_PRIME, "curve", "only bls12381 is supported");
	return 0;
}

static json_t *parse(const char *text, const struct ctx *c, int *rc)
{
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);
	if (!root)
		*rc = zkp_error_set(c->err, ZKP_ERR_FORMAT, "%s: line %d column %d: %s", c->name,
				    je.line, je.column, je.text);
	return root;
}

/* A whole file as a NUL-terminated string. */
static char *slurp(const char *path, zkp_error *err, int *rc)
{
	struct g16_file f;
	*rc = g16_file_open(&f, path, err);
	if (*rc)
		return NULL;
	char *t = malloc(f.size + 1);
	if (t) {
		if (f.size)
			memcpy(t, f.data, f.size);
		t[f.size] = 0;
	} else {
		*rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
	}
	g16_file_close(&f);
	return t;
}

int zkp_groth16_proof_from_json(zkp_groth16_proof *proof, const char *text, const char *name,
				zkp_error *err)
{
	struct ctx c = { name ? name : "proof", err };
	int rc = 0;
	json_t *root = parse(text, &c, &rc);
	if (!root)
		return rc;
	if (!json_is_object(root))
		rc = bad(&c, ZKP_ERR_FORMAT, "(top)", "expected an object");
	if (!rc)
		rc = check_kind(root, &c, false);
	if (!rc)
		rc = get_g1(&proof->a, json_object_get(root, "pi_a"), &c, "pi_a");
	if (!rc)
		rc = get_g2(&proof->b, json_object_get(root, "pi_b"), &c, "pi_b");
	if (!rc)
		rc = get_g1(&proof->c, json_object_get(root, "pi_c"), &c, "pi_c");
	json_decref(root);
	return rc;
}

int zkp_groth16_proof_read_json(zkp_groth16_proof *proof, const char *path, zkp_error *err)
{
	int rc;
	char *t = slurp(path, err, &rc);
	if (!t)
		return rc;
	rc = zkp_groth16_proof_from_json(proof, t, path, err);
	free(t);
	return rc;
}

int zkp_groth16_public_read_json(zkp_fr **inputs, size_t *n, const char *path, zkp_error *err)
{
	struct ctx c = { path, err };
	*inputs = NULL;
	*n = 0;
	int rc;
	char *t = slurp(path, err, &rc);
	if (!t)
		return rc;
	json_t *root = parse(t, &c, &rc);
	free(t);
	if (!root)
		return rc;
	zkp_fr *v = NULL;
	size_t cnt = json_is_array(root) ? json_array_size(root) : 0;
	if (!json_is_array(root)) {
		rc = bad(&c, ZKP_ERR_FORMAT, "(top)", "expected an array of decimal strings");
		goto out;
	}
	v = malloc((cnt ? cnt : 1) * sizeof(*v));
	if (!v) {
		rc = zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	for (size_t i = 0; i < cnt; i++) {
		char f[32];
		snprintf(f, sizeof(f), "[%zu]", i);
		rc = num_fr(&v[i], json_array_get(root, i), &c, f);
		if (rc)
			goto out;
	}
	*inputs = v;
	*n = cnt;
	v = NULL;
out:
	free(v);
	json_decref(root);
	return rc;
}

int g16_vk_json_parse(zkp_groth16_vk *vk, const char *text, const char *name, zkp_error *err)
{
	struct ctx c = { name, err };
	zkp_groth16_vk v;
	zkp_groth16_vk_init(&v);
	int rc = 0;
	json_t *root = parse(text, &c, &rc);
	if (!root)
		return rc;
	json_t *icj = json_object_get(root, "IC");
	json_t *np = json_object_get(root, "nPublic");
	zkp_g1_affine *ic;
	if (!json_is_object(root))
		rc = bad(&c, ZKP_ERR_FORMAT, "(top)", "expected an object");
	if (!rc)
		rc = check_kind(root, &c, true);
	if (!rc && (!json_is_array(icj) || json_array_size(icj) == 0))
		rc = bad(&c, ZKP_ERR_FORMAT, "IC", "expected a non-empty array of G1 points");
	if (!rc && np &&
	    (!json_is_integer(np) || json_integer_value(np) < 0 ||
	     (size_t)json_integer_value(np) + 1 != json_array_size(icj)))
		rc = zkp_error_set(err, ZKP_ERR_MISMATCH,
				   "%s: field nPublic: %lld, but IC has %zu points (nPublic + 1 "
				   "expected)",
				   name, json_is_integer(np) ? (long long)json_integer_value(np) : -1LL,
				   json_array_size(icj));
	if (!rc)
		rc = get_g1(&v.alpha_g1, json_object_get(root, "vk_alpha_1"), &c, "vk_alpha_1");
	if (!rc)
		rc = get_g2(&v.beta_g2, json_object_get(root, "vk_beta_2"), &c, "vk_beta_2");
	if (!rc)
		rc = get_g2(&v.gamma_g2, json_object_get(root, "vk_gamma_2"), &c, "vk_gamma_2");
	if (!rc)
		rc = get_g2(&v.delta_g2, json_object_get(root, "vk_delta_2"), &c, "vk_delta_2");
	if (!rc) {
		rc = zkp_groth16_vk_alloc_ic(&v, json_array_size(icj), &ic);
		if (rc)
			zkp_error_set(err, rc, "%s: out of memory", name);
	}
	for (size_t i = 0; !rc && i < v.n_ic; i++) {
		char f[32];
		snprintf(f, sizeof(f), "IC[%zu]", i);
		rc = get_g1(&ic[i], json_array_get(icj, i), &c, f);
	}
	json_decref(root);
	if (rc) {
		zkp_groth16_vk_release(&v);
		return rc;
	}
	v.has_g1_extras = false;
	*vk = v;
	return 0;
}

int zkp_groth16_vk_read_json(zkp_groth16_vk *vk, const char *path, zkp_error *err)
{
	int rc;
	zkp_groth16_vk_init(vk);
	char *t = slurp(path, err, &rc);
	if (!t)
		return rc;
	rc = g16_vk_json_parse(vk, t, path, err);
	free(t);
	return rc;
}

/* ---- writing ---- */

static json_t *jfp(const zkp_fp *a)
{
	uint64_t l[ZKP_FP_LIMBS];
	char buf[128];
	zkp_fp_to_limbs(l, a);
	limbs_to_dec(buf, l, ZKP_FP_LIMBS);
	return json_string(buf);
}

static json_t *jfr(const zkp_fr *a)
{
	uint64_t l[ZKP_FR_LIMBS];
	char buf[128];
	zkp_fr_to_limbs(l, a);
	limbs_to_dec(buf, l, ZKP_FR_LIMBS);
	return json_string(buf);
}

static json_t *jfp2(const zkp_fp2 *a)
{
	return json_pack("[oo]", jfp(&a->c0), jfp(&a->c1));
}

static json_t *jg1(const zkp_g1_affine *p)
{
	if (zkp_g1_affine_is_infinity(p))
		return json_pack("[sss]", "0", "1", "0");
	return json_pack("[oos]", jfp(&p->x), jfp(&p->y), "1");
}

static json_t *jg2(const zkp_g2_affine *p)
{
	if (zkp_g2_affine_is_infinity(p))
		return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
	return json_pack("[oo[ss]]", jfp2(&p->x), jfp2(&p->y), "1", "0");
}

static json_t *jfp6(const zkp_fp6 *a)
{
	return json_pack("[ooo]", jfp2(&a->c0), jfp2(&a->c1), jfp2(&a->c2));
}

static int dump(json_t *root, const char *path, zkp_error *err)
{
	if (!root)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
	char *s = json_dumps(root, JSON_INDENT(1));
	json_decref(root);
	if (!s)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "%s: out of memory", path);
	int rc = g16_write_file(path, s, strlen(s), err);
	free(s);
	return rc;
}

static json_t *proof_json(const zkp_groth16_proof *proof)
{
	return json_pack("{s:o, s:o, s:o, s:s, s:s}", "pi_a", jg1(&proof->a), "pi_b",
			 jg2(&proof->b), "pi_c", jg1(&proof->c), "protocol", "groth16", "curve",
			 "bls12381");
}

char *zkp_groth16_proof_to_json(const zkp_groth16_proof *proof)
{
	json_t *root = proof_json(proof);
	if (!root)
		return NULL;
	char *s = json_dumps(root, JSON_INDENT(1));
	json_decref(root);
	return s;
}

int zkp_groth16_proof_write_json(const zkp_groth16_proof *proof, const char *path,
				 zkp_error *err)
{
	return dump(proof_json(proof), path, err);
}

int zkp_groth16_public_write_json(const zkp_fr *inputs, size_t n, const char *path,
				  zkp_error *err)
{
	json_t *root = json_array();
	for (size_t i = 0; root && i < n; i++) {
		if (json_array_append_new(root, jfr(&inputs[i]))) {
			json_decref(root);
			root = NULL;
		}
	}
	return dump(root, path, err);
}

int zkp_groth16_vk_write_json(const zkp_groth16_vk *vk, const char *path, zkp_error *err)
{
	zkp_fp12 ab;
	zkp_pairing(&ab, &vk->alpha_g1, &vk->beta_g2);
	json_t *ic = json_array();
	for (size_t i = 0; ic && i < vk->n_ic; i++) {
		if (json_array_append_new(ic, jg1(&vk->ic[i]))) {
			json_decref(ic);
			ic = NULL;
		}
	}
	json_t *root = NULL;
	if (ic)
		root = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:[oo], s:o}", "protocol",
				 "groth16", "curve", "bls12381", "nPublic",
				 (json_int_t)(vk->n_ic - 1), "vk_alpha_1", jg1(&vk->alpha_g1),
				 "vk_beta_2", jg2(&vk->beta_g2), "vk_gamma_2", jg2(&vk->gamma_g2),
				 "vk_delta_2", jg2(&vk->delta_g2), "vk_alphabeta_12",
				 jfp6(&ab.c0), jfp6(&ab.c1), "IC", ic);
	return dump(root, path, err);
}

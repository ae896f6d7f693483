/*
 * Device memory admission (engine_int.h, "Device memory"): what a GPU
 * holds is planned and counted before anything is allocated there, so that
 * the jobs of one device never ask it for more than gpus.device_memory and
 * a device allocation failing mid-proof stays a fault, not the way memory
 * runs out.
 *
 * A device's ledger (under the engine lock):
 *   mem_keys  the resident copies planned for its circuits: each key's G1
 *             queries, its B_G2 query and the circuit's matrices where the
 *             plan holds them, and the circuit's NTT tables;
 *   mem_msm   the backend's MSM workspace, the largest any circuit needs
 *             (one workspace serves every MSM of the device);
 *   mem_jobs  the buffers of the jobs between their eval and the end of
 *             their MSMs (a, b, c and the witness).
 * A circuit's first job on a device plans the circuit's share: the G1
 * queries, the tables and room for one job must fit beside the other
 * circuits' shares (else the job cannot run there); B_G2 is then held if
 * it fits too (its MSM on the device rather than the host), and the
 * matrices after it (eval on the device rather than the host plus an
 * upload of a, b and c). What is left is room for jobs: each waits
 * before its eval until its buffers fit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_int.h"
#include "zkpd/log.h"

/* bytes as "1.19 MiB", "38.2 GiB": three significant digits (up to four
 * for 1000..1023 of a unit), for log lines and errors. */
struct human {
	char s[32];
};

static struct human human(uint64_t bytes)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	struct human h;
	double v = (double)bytes;
	unsigned u = 0;
	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(h.s, sizeof(h.s), "%" PRIu64 " bytes", bytes);
	else
		snprintf(h.s, sizeof(h.s), "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, units[u]);
	return h;
}

int devmem_init(struct zkp_engine *e, struct device *d, uint64_t free_bytes)
{
	uint64_t cap = e->cfg.device_memory;
	if (!cap && free_bytes) {
		uint64_t margin = free_bytes / 50 + ((uint64_t)256 << 20);
		cap = free_bytes > margin ? free_bytes - margin : 0;
		if (!cap)
			cap = 1; /* nothing free: every circuit is refused, by name */
	} else if (cap && free_bytes && cap > free_bytes) {
		zkp_log(ZKP_LOG_WARN, "%s: gpus.device_memory = %s, but only %s are free on it "
				      "now; jobs may meet device faults",
			d->name, human(cap).s, human(free_bytes).s);
	}
	d->mem_cap = cap;
	if (cap)
		zkp_log(ZKP_LOG_INFO, "%s: %s of device memory for zkpd (%s)", d->name,
			human(cap).s,
			e->cfg.device_memory ? "gpus.device_memory" : "free at start, less 2 % "
								     "and 256 MiB");
	return 0;
}

uint64_t devmem_reserved(const struct device *d)
{
	return d->mem_keys + d->mem_msm + d->mem_jobs;
}

static struct dev_plan *plan_slot(struct zkp_engine *e, struct circuit *c, const struct device *d)
{
	if (!c->dplan)
		c->dplan = calloc(e->n_devs, sizeof(*c->dplan));
	return c->dplan ? &c->dplan[d->index] : NULL;
}

/* Plans c's share of d from its needs (e->lock held): 0, or ZKP_ERR_DEVICE
 * when not even the G1 queries, the tables and one job fit. */
static int plan_circuit(struct device *d, struct circuit *c, struct dev_plan *p,
			const zkp_groth16_device_need *need, zkp_error *err)
{
	uint64_t msm = need->msm > d->mem_msm ? need->msm : d->mem_msm;
	uint64_t base = d->mem_keys + msm + need->tables + need->key_g1 + need->job;
	if (base > d->mem_cap)
		return zkp_error_set(err, ZKP_ERR_DEVICE,
				     "circuit %s does not fit on %s: its key's G1 queries %s, NTT "
				     "tables %s, MSM workspace %s and one job's buffers %s, beside %s "
				     "held for other circuits, come to %s of the %s zkpd may use "
				     "there (gpus.device_memory)",
				     c->cfg.name, d->name, human(need->key_g1).s, human(need->tables).s,
				     human(msm).s, human(need->job).s, human(d->mem_keys).s,
				     human(base).s, human(d->mem_cap).s);
	uint64_t room = d->mem_cap - base;
	p->g2 = need->key_g2 <= room;
	if (p->g2)
		room -= need->key_g2;
	p->matrices = need->matrices <= room;
	p->keys = need->key_g1 + need->tables + (p->g2 ? need->key_g2 : 0) +
		  (p->matrices ? need->matrices : 0);
	p->job = need->job;
	p->planned = true;
	d->mem_keys += p->keys;
	d->mem_msm = msm;
	zkp_log(ZKP_LOG_INFO, "circuit %s on %s: %s resident (G1 queries%s%s, NTT tables), %s "
			      "a job; %s of %s planned%s%s",
		c->cfg.name, d->name, human(p->keys).s, p->g2 ? ", B_G2" : "",
		p->matrices ? ", matrices" : "", human(p->job).s, human(devmem_reserved(d)).s,
		human(d->mem_cap).s, p->g2 ? "" : "; B_G2 does not fit: its MSM runs on the host",
		p->matrices ? "" : "; the matrices do not fit: eval runs on the host");
	return 0;
}

int devmem_admit(struct zkp_engine *e, struct pipeline *pl, struct job *j, zkp_error *err)
{
	struct device *d = pl->dev;
	struct circuit *c = j->circ;
	if (!d->mem_cap || d->be->host_visible || j->fell_back || j->dev_mem)
		return 0;
	struct dev_plan *p = plan_slot(e, c, d);
	if (!p)
		return zkp_error_set(err, ZKP_ERR_NOMEM, "out of memory planning device memory");
	if (!p->planned) {
		zkp_groth16_device_need need;
		zkp_groth16_device_need_of(&need, c->pce, &c->pk, d->be);
		int rc = plan_circuit(d, c, p, &need, err);
		if (rc)
			return rc;
	}
	bool waited = false;
	while (!j->cancel && devmem_reserved(d) + p->job > d->mem_cap) {
		if (!d->mem_jobs)
			return zkp_error_set(err, ZKP_ERR_DEVICE,
					     "a job of circuit %s does not fit on %s: its buffers %s "
					     "beside %s planned for the circuits there and the MSM "
					     "workspace exceed the %s zkpd may use there "
					     "(gpus.device_memory)",
					     c->cfg.name, d->name, human(p->job).s,
					     human(d->mem_keys + d->mem_msm).s, human(d->mem_cap).s);
		if (!waited) {
			job_span(j, ZKP_SPAN_DEVICE_MEMORY, eng_now());
			d->mem_waits++;
			waited = true;
		}
		pthread_cond_wait(&pl->cond, &e->lock);
	}
	if (j->cancel)
		return ZKP_ERR_CANCELLED;
	j->dev = d; /* the device devmem_release gives the bytes back to */
	j->dev_mem = p->job;
	d->mem_jobs += p->job;
	if (devmem_reserved(d) > d->mem_peak)
		d->mem_peak = devmem_reserved(d);
	return 0;
}

void devmem_release(struct zkp_engine *e, struct job *j)
{
	pthread_mutex_lock(&e->lock);
	bool had = j->dev_mem != 0;
	if (had) {
		j->dev->mem_jobs -= j->dev_mem;
		j->dev_mem = 0;
	}
	pthread_mutex_unlock(&e->lock);
	if (had)
		pipelines_wake(e);
}

void devmem_plan_of(struct zkp_engine *e, struct circuit *c, const struct device *d,
		    bool *g2, bool *matrices)
{
	*g2 = *matrices = true;
	pthread_mutex_lock(&e->lock);
	if (d->mem_cap && c->dplan && c->dplan[d->index].planned) {
		*g2 = c->dplan[d->index].g2;
		*matrices = c->dplan[d->index].matrices;
	}
	pthread_mutex_unlock(&e->lock);
}

void devmem_drop_circuit(struct zkp_engine *e, struct circuit *c)
{
	if (!c->dplan)
		return;
	for (size_t i = 0; i < e->n_devs; i++)
		if (c->dplan[i].planned)
			e->devs[i].mem_keys -= c->dplan[i].keys;
	free(c->dplan);
	c->dplan = NULL;
}

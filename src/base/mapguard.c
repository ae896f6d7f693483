/*
 * The SIGBUS guard of mapguard.h. Table slots hold a range and a state; a
 * slot is claimed with a compare-and-swap on its state, filled, then
 * published (state ARMED), so the handler, which runs on whatever thread
 * faulted and takes no lock, sees either a whole range or none.
 *
 * The handler replaces the faulting page with an anonymous zero page
 * (the mmap system call with MAP_FIXED, made directly: safe in a handler
 * on Linux though not listed by POSIX, and not seen by ThreadSanitizer's
 * mmap interceptor, which would model the atomic replacement as a write
 * racing with other threads' reads of the mapping) and returns; the
 * faulting load runs again and reads 0.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "zkpd/mapguard.h"

enum { FREE, BUSY, ARMED };

struct slot {
	_Atomic int state;
	_Atomic uintptr_t lo, hi;
	atomic_bool damaged;
};

static struct slot slots[ZKP_MAPGUARD_MAX];
static atomic_int installed; /* 0 no, 1 yes, -1 failed */
static struct sigaction previous;
static uintptr_t page_size; /* set before the handler is installed */

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	for (int i = 0; i < ZKP_MAPGUARD_MAX; i++) {
		struct slot *s = &slots[i];
		if (atomic_load(&s->state) != ARMED)
			continue;
		if (a < atomic_load(&s->lo) || a >= atomic_load(&s->hi))
			continue;
		void *p = (void *)(a & ~(page_size - 1));
		if (syscall(SYS_mmap, p, (size_t)page_size, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, (off_t)0) == -1)
			break;
		atomic_store(&s->damaged, true);
		return;
	}
	/* Not ours: what would have happened without the guard. */
	if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction) {
		previous.sa_sigaction(sig, si, ctx);
		return;
	}
	if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
	    previous.sa_handler) {
		previous.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

static bool install(void)
{
	int st = atomic_load(&installed);
	if (st)
		return st > 0;
	static atomic_flag once = ATOMIC_FLAG_INIT;
	if (atomic_flag_test_and_set(&once)) {
		while ((st = atomic_load(&installed)) == 0)
			;
		return st > 0;
	}
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	bool ok = sigaction(SIGBUS, &sa, &previous) == 0;
	atomic_store(&installed, ok ? 1 : -1);
	return ok;
}

int zkp_mapguard_add(const void *base, size_t len)
{
	if (!base || !len || !install())
		return 0;
	for (int i = 0; i < ZKP_MAPGUARD_MAX; i++) {
		int expect = FREE;
		if (!atomic_compare_exchange_strong(&slots[i].state, &expect, BUSY))
			continue;
		atomic_store(&slots[i].lo, (uintptr_t)base);
		atomic_store(&slots[i].hi, (uintptr_t)base + len);
		atomic_store(&slots[i].damaged, false);
		atomic_store(&slots[i].state, ARMED);
		return i + 1;
	}
	return 0;
}

void zkp_mapguard_remove(int handle)
{
	if (handle <= 0 || handle > ZKP_MAPGUARD_MAX)
		return;
	atomic_store(&slots[handle - 1].state, FREE);
}

bool zkp_mapguard_damaged(int handle)
{
	if (handle <= 0 || handle > ZKP_MAPGUARD_MAX)
		return false;
	return atomic_load(&slots[handle - 1].damaged);
}

/*
 * The fake CUDA runtime of fake_cudart.h. The entry points keep the
 * runtime's signatures (cuda_runtime_api.h); the hooks that nvcc's
 * generated host code calls (fat binary and kernel registration, launch
 * configuration, __cudaLaunchKernel) are declared here with the signatures
 * of CUDA's crt/host_runtime.h and crt/device_functions.h: their names
 * carry the runtime's double underscores because the generated code links
 * against exactly those.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <map>

#include <cuda_runtime_api.h>

#include "fake_cudart.h"

namespace {

struct fake_event {
	cudaStream_t stream;
	double t_ms;   /* the stream's device time when recorded */
	bool complete; /* reached: always once recorded, unless lazy */
};

struct state {
	unsigned long calls, work, fail_at;
	cudaError_t fail_code, pending, sticky;
	const char *failed_call;
	const char *fail_name; /* fake_cuda_fail_next: the next call of that name fails */
	unsigned long mallocs;
	std::map<void *, size_t> device, pinned;
	size_t streams, bad_frees;
	dim3 grid, block;
	size_t shmem;
	cudaStream_t stream;
	unsigned long created;                        /* streams created since the reset */
	std::map<cudaStream_t, unsigned long> ordinal; /* 1-based creation order */
	std::map<cudaStream_t, unsigned long> syncs;
	cudaStream_t last_h2d;
	std::map<cudaStream_t, double> device_ms; /* device time per stream */
	std::map<fake_event *, bool> events;      /* alive */
	unsigned long launches;
	bool lazy;
};

state &st()
{
	static state s = { 0, 0, 0, cudaSuccess, cudaSuccess, cudaSuccess, "", nullptr, 0, {}, {},
			   0, 0, dim3(), dim3(), 0, nullptr, 0, {}, {}, nullptr, {}, {}, 0, false };
	return s;
}

/* Counts a call and answers whether it goes on: an injected or sticky
 * error is returned through *e (and left pending). */
bool enter(const char *name, bool work, cudaError_t *e)
{
	state &s = st();
	s.calls++;
	if (work)
		s.work++;
	*e = cudaSuccess;
	if (s.sticky != cudaSuccess) {
		*e = s.sticky;
		return false;
	}
	bool named = s.fail_name && strcmp(s.fail_name, name) == 0;
	if (named || (s.fail_at && s.calls == s.fail_at)) {
		s.fail_name = nullptr;
		s.failed_call = name;
		*e = s.fail_code;
		s.pending = s.fail_code;
		if (fake_cuda_sticky(s.fail_code))
			s.sticky = s.fail_code;
		return false;
	}
	return true;
}

cudaError_t release(std::map<void *, size_t> &m, void *p)
{
	if (!p)
		return cudaSuccess;
	auto it = m.find(p);
	if (it == m.end()) {
		st().bad_frees++;
		return cudaErrorInvalidValue;
	}
	free(p);
	m.erase(it);
	return cudaSuccess;
}

} // namespace

extern "C" {

void fake_cuda_reset(void)
{
	state &s = st();
	s.calls = s.work = s.fail_at = s.mallocs = 0;
	s.fail_code = s.pending = s.sticky = cudaSuccess;
	s.failed_call = "";
	s.fail_name = nullptr;
	s.created = 0;
	s.ordinal.clear();
	s.syncs.clear();
	s.last_h2d = nullptr;
	s.launches = 0;
	s.lazy = false;
}

unsigned long fake_cuda_launches(void)
{
	return st().launches;
}

size_t fake_cuda_live_events(void)
{
	return st().events.size();
}

void fake_cuda_lazy_events(bool on)
{
	st().lazy = on;
}

/* The stream of creation ordinal k (1-based) since the reset. */
static cudaStream_t stream_of(unsigned long k)
{
	for (const auto &kv : st().ordinal)
		if (kv.second == k)
			return kv.first;
	return nullptr;
}

unsigned long fake_cuda_stream_syncs(unsigned long k)
{
	cudaStream_t h = stream_of(k);
	auto it = st().syncs.find(h);
	return h && it != st().syncs.end() ? it->second : 0;
}

unsigned long fake_cuda_last_upload_stream(void)
{
	auto it = st().ordinal.find(st().last_h2d);
	return st().last_h2d && it != st().ordinal.end() ? it->second : 0;
}

void fake_cuda_fail_next(const char *name, int code)
{
	st().fail_name = name;
	st().fail_code = (cudaError_t)code;
}

unsigned long fake_cuda_mallocs(void)
{
	return st().mallocs;
}

size_t fake_cuda_live_device_bytes(void)
{
	size_t sum = 0;
	for (const auto &kv : st().device)
		sum += kv.second;
	return sum;
}

void fake_cuda_fail_at(unsigned long k, int code)
{
	st().fail_at = k;
	st().fail_code = (cudaError_t)code;
}

unsigned long fake_cuda_calls(void)
{
	return st().calls;
}

unsigned long fake_cuda_work_calls(void)
{
	return st().work;
}

const char *fake_cuda_failed_call(void)
{
	return st().failed_call;
}

size_t fake_cuda_live_device(void)
{
	return st().device.size();
}

size_t fake_cuda_live_pinned(void)
{
	return st().pinned.size();
}

size_t fake_cuda_live_streams(void)
{
	return st().streams;
}

size_t fake_cuda_bad_frees(void)
{
	return st().bad_frees;
}

bool fake_cuda_sticky(int code)
{
	switch ((cudaError_t)code) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchFailure:
	case cudaErrorLaunchTimeout:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorAssert:
	case cudaErrorECCUncorrectable:
		return true;
	default:
		return false;
	}
}

/* ---- the entry points the shim and the launchers call ---- */

cudaError_t cudaGetDeviceCount(int *count)
{
	cudaError_t e;
	*count = 0;
	if (!enter("cudaGetDeviceCount", true, &e))
		return e;
	*count = 1;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	cudaError_t e;
	if (!enter("cudaSetDevice", false, &e))
		return e;
	return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
	(void)flags;
	cudaError_t e;
	if (!enter("cudaStreamCreateWithFlags", true, &e))
		return e;
	static unsigned long handles; /* never reset: a handle is never reused */
	st().streams++;
	*stream = (cudaStream_t)(uintptr_t)(0x1000 + ++handles);
	st().ordinal[*stream] = ++st().created;
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	(void)stream;
	cudaError_t e;
	bool go = enter("cudaStreamDestroy", false, &e);
	if (st().streams)
		st().streams--;
	return go ? cudaSuccess : e;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	cudaError_t e;
	if (!enter("cudaStreamSynchronize", false, &e))
		return e;
	st().syncs[stream]++;
	for (auto &kv : st().events)
		if (kv.first->stream == stream)
			kv.first->complete = true;
	return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	(void)flags;
	cudaError_t e;
	*event = nullptr;
	if (!enter("cudaEventCreateWithFlags", true, &e))
		return e;
	fake_event *ev = new fake_event{ nullptr, 0, true };
	st().events[ev] = true;
	*event = (cudaEvent_t)ev;
	return cudaSuccess;
}

/* Destroys even in a sticky context, as frees do: the leak check sees
 * whether the shim handed every event back. */
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	cudaError_t e;
	bool go = enter("cudaEventDestroy", false, &e);
	fake_event *ev = (fake_event *)event;
	auto it = st().events.find(ev);
	if (it == st().events.end()) {
		st().bad_frees++;
		return go ? cudaErrorInvalidResourceHandle : e;
	}
	st().events.erase(it);
	delete ev;
	return go ? cudaSuccess : e;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	cudaError_t e;
	if (!enter("cudaEventRecord", true, &e))
		return e;
	fake_event *ev = (fake_event *)event;
	if (!st().events.count(ev))
		return st().pending = cudaErrorInvalidResourceHandle;
	ev->stream = stream;
	ev->t_ms = st().device_ms[stream];
	ev->complete = !st().lazy;
	return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
	cudaError_t e;
	if (!enter("cudaEventQuery", false, &e))
		return e;
	fake_event *ev = (fake_event *)event;
	if (!st().events.count(ev))
		return st().pending = cudaErrorInvalidResourceHandle;
	return ev->complete ? cudaSuccess : cudaErrorNotReady;
}

/* Completes the event and every event recorded before it on its stream
 * (stamped no later). */
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	cudaError_t e;
	if (!enter("cudaEventSynchronize", false, &e))
		return e;
	fake_event *ev = (fake_event *)event;
	if (!st().events.count(ev))
		return st().pending = cudaErrorInvalidResourceHandle;
	for (auto &kv : st().events)
		if (kv.first->stream == ev->stream && kv.first->t_ms <= ev->t_ms)
			kv.first->complete = true;
	ev->complete = true;
	return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	cudaError_t e;
	*ms = 0;
	if (!enter("cudaEventElapsedTime", false, &e))
		return e;
	fake_event *a = (fake_event *)start, *b = (fake_event *)end;
	if (!st().events.count(a) || !st().events.count(b))
		return st().pending = cudaErrorInvalidResourceHandle;
	if (!a->complete || !b->complete)
		return cudaErrorNotReady;
	*ms = (float)(b->t_ms - a->t_ms);
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t size)
{
	cudaError_t e;
	*ptr = nullptr;
	if (!enter("cudaMalloc", true, &e))
		return e;
	st().mallocs++;
	void *p = calloc(1, size ? size : 1);
	if (!p)
		return st().pending = cudaErrorMemoryAllocation;
	st().device[p] = size;
	*ptr = p;
	return cudaSuccess;
}

/* Frees release the memory even in a sticky context, so that the leak check
 * sees whether the shim handed every pointer back. */
cudaError_t cudaFree(void *ptr)
{
	cudaError_t e;
	bool go = enter("cudaFree", false, &e);
	cudaError_t r = release(st().device, ptr);
	return go ? r : e;
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	(void)flags;
	cudaError_t e;
	*ptr = nullptr;
	if (!enter("cudaHostAlloc", true, &e))
		return e;
	void *p = calloc(1, size ? size : 1);
	if (!p)
		return st().pending = cudaErrorMemoryAllocation;
	st().pinned[p] = size;
	*ptr = p;
	return cudaSuccess;
}

cudaError_t cudaFreeHost(void *ptr)
{
	cudaError_t e;
	bool go = enter("cudaFreeHost", false, &e);
	cudaError_t r = release(st().pinned, ptr);
	return go ? r : e;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
			    cudaStream_t stream)
{
	cudaError_t e;
	if (!enter("cudaMemcpyAsync", true, &e))
		return e;
	if (kind == cudaMemcpyHostToDevice)
		st().last_h2d = stream;
	if (count)
		memmove(dst, src, count);
	return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
	(void)stream;
	cudaError_t e;
	if (!enter("cudaMemsetAsync", true, &e))
		return e;
	if (count)
		memset(ptr, value, count);
	return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
	cudaError_t e;
	*free_b = *total = 0;
	if (!enter("cudaMemGetInfo", true, &e))
		return e;
	*total = (size_t)1 << 30;
	size_t used = 0;
	for (auto &a : st().device)
		used += a.second;
	*free_b = *total - used;
	return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
	cudaError_t e;
	if (!enter("cudaGetLastError", true, &e))
		return e; /* the injected error is reported here, and cleared */
	e = st().pending;
	st().pending = st().sticky;
	return e;
}

cudaError_t cudaPeekAtLastError(void)
{
	return st().pending;
}

const char *cudaGetErrorName(cudaError_t error)
{
	switch (error) {
	case cudaSuccess: return "cudaSuccess";
	case cudaErrorNotReady: return "cudaErrorNotReady";
	case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
	case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
	case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
	case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
	case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
	default: return "cudaErrorOther";
	}
}

const char *cudaGetErrorString(cudaError_t error)
{
	return error == cudaSuccess ? "no error" : "injected by fake_cudart";
}

/* ---- hooks of nvcc's generated host code ---- */

void **__cudaRegisterFatBinary(void *fat_cubin)
{
	static void *handle;
	handle = fat_cubin;
	return &handle;
}

void __cudaRegisterFatBinaryEnd(void **handle)
{
	(void)handle;
}

void __cudaUnregisterFatBinary(void **handle)
{
	(void)handle;
}

/* Debug builds' generated code initialises each module through this. */
char __cudaInitModule(void **handle)
{
	(void)handle;
	return 1;
}

void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
			    const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
			    dim3 *bdim, dim3 *gdim, int *wsize)
{
	(void)handle, (void)host_fun, (void)device_fun, (void)device_name, (void)thread_limit;
	(void)tid, (void)bid, (void)bdim, (void)gdim, (void)wsize;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream)
{
	st().grid = grid;
	st().block = block;
	st().shmem = shmem;
	st().stream = stream;
	return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream)
{
	*grid = st().grid;
	*block = st().block;
	*shmem = st().shmem;
	*(cudaStream_t *)stream = st().stream;
	return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
	*kernel = (cudaKernel_t)fun;
	return cudaSuccess;
}

/* A launch runs nothing; a launch with an empty grid or block fails as the
 * runtime's would (cudaErrorInvalidConfiguration), so the shim's launch
 * configurations are checked for that much. */
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
			       size_t shmem, cudaStream_t stream)
{
	(void)kernel, (void)args, (void)shmem, (void)stream;
	cudaError_t e;
	if (!enter("kernel launch", true, &e))
		return e;
	if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z || block.x > 1024)
		return st().pending = cudaErrorInvalidConfiguration;
	st().launches++;
	st().device_ms[stream] += FAKE_CUDA_LAUNCH_MS;
	return cudaSuccess;
}

} /* extern "C" */

#!/usr/bin/env bash
# Builds the GPU check's programs here, for a GPU machine that has the CUDA
# toolkit but not zkpd's Debian libraries (and no network to fetch them):
# test_cuda_math, test_gpu_field, test_gpu_backend, zkpd-gpu-bench,
# zkpd-bench and the programs zkpd, zkpctl and zkp (the daemon smoke test,
# and the PoRep job of bench/gpu-porep.sh), built with -DZKPD_CUDA=ON
# (sm_90 + PTX) and without jemalloc, copied into KIT_DIR/bin with every
# shared library they need beyond the C library into KIT_DIR/lib.
# bench/gpu-check.sh --kit KIT_DIR and bench/gpu-porep.sh --kit KIT_DIR
# then run them there without building anything.
#
#   bench/gpu-kit.sh [KIT_DIR] [BUILD_DIR]   (defaults: .gpu-kit, build-gpu-kit,
#                                             both in the repository and ignored by git)
#
# The programs need glibc 2.34 or newer where they run. The kit is about
# 72 MiB (28 MB as tar.xz).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kit=${1:-$root/.gpu-kit}
build=${2:-$root/build-gpu-kit}
jobs=${JOBS:-$(nproc)}
progs=(tests/unit/cuda/test_cuda_math tests/gpu/test_gpu_field tests/gpu/test_gpu_backend
       bench/zkpd-gpu-bench bench/zkpd-bench src/daemon/zkpd src/daemon/zkpctl src/tools/zkp)

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZKPD_CUDA=ON \
	-DZKPD_JEMALLOC=OFF -DBUILD_TESTING=ON >/dev/null
cmake --build "$build" -j "$jobs" --target test_cuda_math test_gpu_field test_gpu_backend \
	zkpd-gpu-bench zkpd-bench zkpd zkpctl zkp

rm -rf "$kit"
mkdir -p "$kit/bin" "$kit/lib"
for p in "${progs[@]}"; do
	cp "$build/$p" "$kit/bin/"
	# Every library ldd resolves except the C library's own (libc, libm,
	# the dynamic loader), which the machine's must provide.
	ldd "$build/$p" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
		case $(basename "$lib") in
		libc.so.* | libm.so.* | ld-linux* | libpthread.so.* | libdl.so.* | librt.so.*) ;;
		*) cp -L "$lib" "$kit/lib/" ;;
		esac
	done
done
du -sh "$kit" | awk '{ print "gpu-kit: " $1 " in '"$kit"'" }'

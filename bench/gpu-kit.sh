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
# Variants: zkpd-bench is also built with other CUDA options, one build
# directory each (BUILD_DIR-NAME), as KIT_DIR/bin/zkpd-bench.NAME, listed
# with their options in KIT_DIR/variants.txt; gpu-check times each against
# the default build in the same run. GPU_KIT_VARIANTS holds NAME=OPTION
# words (an OPTION a cmake -D setting of cuda/CMakeLists.txt; "" builds
# none); the default:
#   cios=ZKPD_CUDA_FP_KARATSUBA=OFF   Fp products by the CIOS, not in three halves
#   minb3=ZKPD_CUDA_MSM_MIN_BLOCKS=3  the MSM's point kernels held to 3 blocks an SM
#
#   bench/gpu-kit.sh [KIT_DIR] [BUILD_DIR]   (defaults: .gpu-kit, build-gpu-kit,
#                                             both in the repository and ignored by git)
#
# The programs need glibc 2.34 or newer where they run. The kit is about
# 95 MiB with the default variants (37 MB as tar.xz).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kit=${1:-$root/.gpu-kit}
build=${2:-$root/build-gpu-kit}
jobs=${JOBS:-$(nproc)}
variants=${GPU_KIT_VARIANTS-cios=ZKPD_CUDA_FP_KARATSUBA=OFF minb3=ZKPD_CUDA_MSM_MIN_BLOCKS=3}
for v in $variants; do
	if ! [[ $v =~ ^[a-z0-9]+=ZKPD_CUDA_[A-Z0-9_]+=[A-Za-z0-9]+$ ]]; then
		echo "gpu-kit: a variant is NAME=ZKPD_CUDA_OPTION=VALUE, not '$v'" >&2
		exit 2
	fi
done
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
# The variants: zkpd-bench alone, with the same libraries as the default's.
: >"$kit/variants.txt"
for v in $variants; do
	name=${v%%=*}
	opt=${v#*=}
	cmake -S "$root" -B "$build-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZKPD_CUDA=ON \
		-DZKPD_JEMALLOC=OFF -DBUILD_TESTING=OFF "-D$opt" >/dev/null
	cmake --build "$build-$name" -j "$jobs" --target zkpd-bench
	cp "$build-$name/bench/zkpd-bench" "$kit/bin/zkpd-bench.$name"
	echo "$name $opt" >>"$kit/variants.txt"
done
du -sh "$kit" | awk '{ print "gpu-kit: " $1 " in '"$kit"'" }'

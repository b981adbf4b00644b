/* warpscope_prelude.h - forced first into every CUDA translation unit
 * warpscope compiles (clang -include), as nvcc implicitly includes
 * cuda_runtime.h.
 *
 * Design: clang runs with -nocudainc, so none of its CUDA wrapper headers
 * (which need a CUDA toolkit) are read; this prelude gives the execution
 * space qualifiers as the attributes clang already understands, clang's own
 * builtin variables (threadIdx, blockIdx, blockDim, gridDim, warpSize) and
 * the project's device-side runtime subset. Nothing here needs a toolkit. */
#ifndef WARPSCOPE_PRELUDE_H
#define WARPSCOPE_PRELUDE_H

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#ifndef __restrict__
#define __restrict__ __restrict
#endif
#define __WARPSCOPE_CUDA__ 1

#include <__clang_cuda_builtin_vars.h>

#include "cuda_runtime.h"

#endif

/* device_functions.h - the device-side subset of the CUDA runtime warpscope
 * supports: barriers and fences, warp shuffles and votes, atomics, read-only
 * loads and single-precision math.
 *
 * Design: clang runs with -nocudainc -nocudalib, so neither its CUDA wrapper
 * headers nor libdevice are there; every function here is one NVVM builtin
 * clang knows (or one line of inline PTX where none exists), so each call
 * becomes the one PTX instruction a student expects (shfl.sync.down.b32,
 * atom.add.f32, ex2.approx.f32, ...) and never a call into a library the
 * translator would not have. The math is the fast path (approximate
 * instructions, as under nvcc --use_fast_math); docs/cuda.md says which. */
#ifndef WARPSCOPE_DEVICE_FUNCTIONS_H
#define WARPSCOPE_DEVICE_FUNCTIONS_H

#define WS_DEV static __inline__ __device__ __attribute__((always_inline))

/* Device-side printf: clang lowers it to vprintf (PTX's system call), but
 * it needs a device-side declaration to accept the call. */
extern "C" {
__device__ int vprintf(const char *format, const char *args);
__device__ int printf(const char *format, ...);
}

/* ---- barriers and fences ------------------------------------------------ */
/* __syncthreads() is a clang builtin in CUDA mode, and clang 14 and 15 at
 * -O2 and above move shared-memory loads across it into the other side of
 * a branch (llvm/llvm-project#58626), which races. The macro puts the
 * barrier in an asm statement that clobbers memory, which no load or store
 * crosses; the builtin's own name stays declared for clang. */
WS_DEV void __ws_syncthreads(void) { asm volatile("bar.sync 0;" ::: "memory"); }
#define __syncthreads() __ws_syncthreads()
WS_DEV int __syncthreads_count(int pred) { return __nvvm_bar0_popc(pred); }
WS_DEV int __syncthreads_and(int pred) { return __nvvm_bar0_and(pred); }
WS_DEV int __syncthreads_or(int pred) { return __nvvm_bar0_or(pred); }
WS_DEV void __syncwarp(unsigned mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
WS_DEV void __threadfence_block(void) { __nvvm_membar_cta(); }
WS_DEV void __threadfence(void) { __nvvm_membar_gl(); }
WS_DEV void __threadfence_system(void) { __nvvm_membar_sys(); }

/* ---- warp shuffles and votes -------------------------------------------- */
/* The c operand packs the segment mask (32 - width) << 8 with the clamp
 * lane: 31 for idx, down and xor, 0 for up (PTX ISA, shfl.sync). */
#define WS_SHFL_C(width, clamp) ((((unsigned)(32 - (width))) << 8) | (clamp))
WS_DEV int __shfl_sync(unsigned mask, int v, int lane, int width = 32) {
  return __nvvm_shfl_sync_idx_i32(mask, v, lane, WS_SHFL_C(width, 0x1f));
}
WS_DEV unsigned __shfl_sync(unsigned mask, unsigned v, int lane, int width = 32) {
  return (unsigned)__nvvm_shfl_sync_idx_i32(mask, (int)v, lane, WS_SHFL_C(width, 0x1f));
}
WS_DEV float __shfl_sync(unsigned mask, float v, int lane, int width = 32) {
  return __nvvm_shfl_sync_idx_f32(mask, v, lane, WS_SHFL_C(width, 0x1f));
}
WS_DEV int __shfl_up_sync(unsigned mask, int v, unsigned delta, int width = 32) {
  return __nvvm_shfl_sync_up_i32(mask, v, (int)delta, WS_SHFL_C(width, 0));
}
WS_DEV unsigned __shfl_up_sync(unsigned mask, unsigned v, unsigned delta, int width = 32) {
  return (unsigned)__nvvm_shfl_sync_up_i32(mask, (int)v, (int)delta, WS_SHFL_C(width, 0));
}
WS_DEV float __shfl_up_sync(unsigned mask, float v, unsigned delta, int width = 32) {
  return __nvvm_shfl_sync_up_f32(mask, v, (int)delta, WS_SHFL_C(width, 0));
}
WS_DEV int __shfl_down_sync(unsigned mask, int v, unsigned delta, int width = 32) {
  return __nvvm_shfl_sync_down_i32(mask, v, (int)delta, WS_SHFL_C(width, 0x1f));
}
WS_DEV unsigned __shfl_down_sync(unsigned mask, unsigned v, unsigned delta, int width = 32) {
  return (unsigned)__nvvm_shfl_sync_down_i32(mask, (int)v, (int)delta, WS_SHFL_C(width, 0x1f));
}
WS_DEV float __shfl_down_sync(unsigned mask, float v, unsigned delta, int width = 32) {
  return __nvvm_shfl_sync_down_f32(mask, v, (int)delta, WS_SHFL_C(width, 0x1f));
}
WS_DEV int __shfl_xor_sync(unsigned mask, int v, int lane_mask, int width = 32) {
  return __nvvm_shfl_sync_bfly_i32(mask, v, lane_mask, WS_SHFL_C(width, 0x1f));
}
WS_DEV unsigned __shfl_xor_sync(unsigned mask, unsigned v, int lane_mask, int width = 32) {
  return (unsigned)__nvvm_shfl_sync_bfly_i32(mask, (int)v, lane_mask, WS_SHFL_C(width, 0x1f));
}
WS_DEV float __shfl_xor_sync(unsigned mask, float v, int lane_mask, int width = 32) {
  return __nvvm_shfl_sync_bfly_f32(mask, v, lane_mask, WS_SHFL_C(width, 0x1f));
}
#undef WS_SHFL_C
WS_DEV unsigned __ballot_sync(unsigned mask, int pred) { return __nvvm_vote_ballot_sync(mask, pred != 0); }
WS_DEV int __all_sync(unsigned mask, int pred) { return __nvvm_vote_all_sync(mask, pred != 0); }
WS_DEV int __any_sync(unsigned mask, int pred) { return __nvvm_vote_any_sync(mask, pred != 0); }
WS_DEV unsigned __activemask(void) {
  unsigned m;
  asm volatile("activemask.b32 %0;" : "=r"(m));
  return m;
}
WS_DEV unsigned __lanemask_lt(void) { return (unsigned)__nvvm_read_ptx_sreg_lanemask_lt(); }
WS_DEV int __popc(unsigned x) { return __builtin_popcount(x); }
WS_DEV int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
WS_DEV int __ffs(int x) { return __builtin_ffs(x); }
WS_DEV unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }

/* ---- atomics: generic addresses; clang narrows them to .global or .shared
 * when it can prove the space ------------------------------------------------ */
WS_DEV int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
WS_DEV unsigned atomicAdd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
WS_DEV unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
WS_DEV float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
WS_DEV double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
WS_DEV int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
WS_DEV unsigned atomicSub(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, -(int)v);
}
WS_DEV int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
WS_DEV unsigned atomicMin(unsigned *p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
WS_DEV int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
WS_DEV unsigned atomicMax(unsigned *p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
WS_DEV int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
WS_DEV unsigned atomicExch(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_xchg_gen_i((int *)p, (int)v);
}
WS_DEV float atomicExch(float *p, float v) {
  return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int *)p, __builtin_bit_cast(int, v)));
}
WS_DEV int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
WS_DEV unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v);
}
WS_DEV unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)cmp, (long long)v);
}
WS_DEV int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
WS_DEV unsigned atomicAnd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_and_gen_i((int *)p, (int)v);
}
WS_DEV int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
WS_DEV unsigned atomicOr(unsigned *p, unsigned v) { return (unsigned)__nvvm_atom_or_gen_i((int *)p, (int)v); }
WS_DEV int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
WS_DEV unsigned atomicXor(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_xor_gen_i((int *)p, (int)v);
}
WS_DEV unsigned atomicInc(unsigned *p, unsigned limit) { return __nvvm_atom_inc_gen_ui(p, limit); }
WS_DEV unsigned atomicDec(unsigned *p, unsigned limit) { return __nvvm_atom_dec_gen_ui(p, limit); }

/* ---- read-only loads (ld.global.nc) ---------------------------------------- */
WS_DEV float __ldg(const float *p) { return __nvvm_ldg_f(p); }
WS_DEV int __ldg(const int *p) { return __nvvm_ldg_i(p); }
WS_DEV unsigned __ldg(const unsigned *p) { return __nvvm_ldg_ui(p); }
WS_DEV float2 __ldg(const float2 *p) {
  typedef float v2 __attribute__((ext_vector_type(2)));
  v2 r = __nvvm_ldg_f2((const v2 *)p);
  return make_float2(r.x, r.y);
}
WS_DEV float4 __ldg(const float4 *p) {
  typedef float v4 __attribute__((ext_vector_type(4)));
  v4 r = __nvvm_ldg_f4((const v4 *)p);
  return make_float4(r.x, r.y, r.z, r.w);
}
WS_DEV int4 __ldg(const int4 *p) {
  typedef int v4 __attribute__((ext_vector_type(4)));
  v4 r = __nvvm_ldg_i4((const v4 *)p);
  return make_int4(r.x, r.y, r.z, r.w);
}

/* ---- single-precision math: the fast forms ---------------------------------- */
#define WS_LOG2E_F 1.4426950408889634f
WS_DEV float __expf(float x) { return __nvvm_ex2_approx_f(x * WS_LOG2E_F); }
WS_DEV float __exp2f(float x) { return __nvvm_ex2_approx_f(x); }
WS_DEV float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
WS_DEV float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
WS_DEV float __sinf(float x) { return __nvvm_sin_approx_f(x); }
WS_DEV float __cosf(float x) { return __nvvm_cos_approx_f(x); }
WS_DEV float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
WS_DEV float __frcp_rn(float x) { return __nvvm_rcp_rn_f(x); }
WS_DEV float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }
WS_DEV float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
WS_DEV float __saturatef(float x) { return __nvvm_saturate_f(x); }
WS_DEV float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
WS_DEV float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
WS_DEV float expf(float x) { return __expf(x); }
WS_DEV float exp2f(float x) { return __nvvm_ex2_approx_f(x); }
WS_DEV float logf(float x) { return __logf(x); }
WS_DEV float log2f(float x) { return __nvvm_lg2_approx_f(x); }
WS_DEV float sinf(float x) { return __nvvm_sin_approx_f(x); }
WS_DEV float cosf(float x) { return __nvvm_cos_approx_f(x); }
WS_DEV float powf(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }
WS_DEV float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
WS_DEV float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
WS_DEV float fabsf(float x) { return __nvvm_fabs_f(x); }
WS_DEV float fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
WS_DEV float floorf(float x) { return __nvvm_floor_f(x); }
WS_DEV float ceilf(float x) { return __nvvm_ceil_f(x); }
WS_DEV float truncf(float x) { return __nvvm_trunc_f(x); }
WS_DEV float roundf(float x) { return __nvvm_round_f(x); }
/* tanh.approx.f32 (sm_75 and later) has no NVVM builtin in clang 14 */
WS_DEV float tanhf(float x) {
  float r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
WS_DEV int min(int a, int b) { return a < b ? a : b; }
WS_DEV int max(int a, int b) { return a > b ? a : b; }
WS_DEV unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
WS_DEV unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
WS_DEV float min(float a, float b) { return fminf(a, b); }
WS_DEV float max(float a, float b) { return fmaxf(a, b); }
WS_DEV long long clock64(void) { return __nvvm_read_ptx_sreg_clock64(); }
WS_DEV int clock(void) { return __nvvm_read_ptx_sreg_clock(); }
WS_DEV int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
WS_DEV int __float2int_rz(float x) { return __nvvm_f2i_rz(x); }
WS_DEV unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
WS_DEV int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
WS_DEV float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
WS_DEV float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
#undef WS_LOG2E_F

#undef WS_DEV
#endif

/* warpscope_mma.h - tensor-core and asynchronous-copy helpers as inline
 * PTX: cp.async (global to shared, 16 B), its commit and wait, ldmatrix
 * (four 8x8 b16 tiles) and mma.sync.aligned.m16n8k16 (f16 inputs, f32
 * accumulators).
 *
 * Design: CUDA's own wrappers (mma.h's wmma, cuda_pipeline.h) come with the
 * toolkit, which warpscope does not need; these are the same instructions
 * spelled out, one per function, so the PTX a student reads is exactly the
 * instruction the kernel wrote. Fragment layouts follow the PTX ISA's
 * description of m16n8k16 (9.7.13.5.8). */
#ifndef WARPSCOPE_MMA_H
#define WARPSCOPE_MMA_H

#define WS_MMA_DEV static __inline__ __device__ __attribute__((always_inline))

/* The 32-bit shared-state-space address of a generic pointer into shared
 * memory: what cp.async and ldmatrix take. */
WS_MMA_DEV unsigned ws_smem_addr(const void *p) {
  /* an address-space cast (cvta.to.shared) rather than inline PTX, so the
   * compiler sees the conversion and no scoped .reg block reaches the PTX */
  typedef const __attribute__((address_space(3))) char *shared_ptr;
  return (unsigned)(unsigned long)(shared_ptr)p;
}

/* 16 bytes from global to shared, bypassing L1 (.cg); completes at a wait. */
WS_MMA_DEV void ws_cp_async_16(void *smem_dst, const void *gmem_src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(ws_smem_addr(smem_dst)), "l"(gmem_src)
               : "memory");
}
WS_MMA_DEV void ws_cp_async_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }
/* Waits until at most `n` committed groups are still in flight. */
#define ws_cp_async_wait(n) asm volatile("cp.async.wait_group %0;" ::"n"(n) : "memory")
WS_MMA_DEV void ws_cp_async_wait_all(void) { asm volatile("cp.async.wait_all;" ::: "memory"); }

/* Four 8x8 tiles of 16-bit values from shared memory; lane i gives the row
 * address of row i % 8 of tile i / 8 and receives one 32-bit pair of each. */
WS_MMA_DEV void ws_ldmatrix_x4(unsigned r[4], const void *smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(ws_smem_addr(smem_row)));
}
/* Two 8x8 tiles: lanes 0-15 give the row addresses (a B fragment of
 * m16n8k16 from a tile stored n-major, k contiguous). */
WS_MMA_DEV void ws_ldmatrix_x2(unsigned r[2], const void *smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(ws_smem_addr(smem_row)));
}
/* The same, transposed: for a B tile stored row-major in k. */
WS_MMA_DEV void ws_ldmatrix_x2_trans(unsigned r[2], const void *smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(ws_smem_addr(smem_row)));
}

/* d = a * b + c for one warp's 16x8x16 tile: a holds 4 registers of f16
 * pairs (row-major 16x16), b 2 (column-major 16x8), c and d 4 floats. */
WS_MMA_DEV void ws_mma_m16n8k16_f16_f32(float d[4], const unsigned a[4], const unsigned b[2],
                                        const float c[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %11, %12, %13};"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}

#undef WS_MMA_DEV
#endif

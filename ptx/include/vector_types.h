/* vector_types.h - CUDA's built-in vector types (float4, int2, dim3, ...)
 * and their make_* constructors, usable on host and device.
 *
 * Design: the alignments are CUDA's (float4 and int4 16 bytes, float2 8), so
 * a float4 load compiles to one ld.v4.f32 as it does under nvcc. dim3 and
 * uint3 are structs named as clang's builtin-variable header forward-declares
 * them, so `dim3 t = threadIdx;` works. */
#ifndef WARPSCOPE_VECTOR_TYPES_H
#define WARPSCOPE_VECTOR_TYPES_H

#define WS_VEC1(name, T, A)                                                                                  \
  struct __attribute__((aligned(A))) name {                                                                  \
    T x;                                                                                                     \
  };                                                                                                         \
  typedef struct name name;                                                                                  \
  static __inline__ __host__ __device__ name make_##name(T x) {                                              \
    name v = {x};                                                                                            \
    return v;                                                                                                \
  }
#define WS_VEC2(name, T, A)                                                                                  \
  struct __attribute__((aligned(A))) name {                                                                  \
    T x, y;                                                                                                  \
  };                                                                                                         \
  typedef struct name name;                                                                                  \
  static __inline__ __host__ __device__ name make_##name(T x, T y) {                                         \
    name v = {x, y};                                                                                         \
    return v;                                                                                                \
  }
#define WS_VEC3(name, T, A)                                                                                  \
  struct __attribute__((aligned(A))) name {                                                                  \
    T x, y, z;                                                                                               \
  };                                                                                                         \
  typedef struct name name;                                                                                  \
  static __inline__ __host__ __device__ name make_##name(T x, T y, T z) {                                    \
    name v = {x, y, z};                                                                                      \
    return v;                                                                                                \
  }
#define WS_VEC4(name, T, A)                                                                                  \
  struct __attribute__((aligned(A))) name {                                                                  \
    T x, y, z, w;                                                                                            \
  };                                                                                                         \
  typedef struct name name;                                                                                  \
  static __inline__ __host__ __device__ name make_##name(T x, T y, T z, T w) {                               \
    name v = {x, y, z, w};                                                                                   \
    return v;                                                                                                \
  }
#define WS_VEC_ALL(base, T, S)                                                                               \
  WS_VEC1(base##1, T, S)                                                                                     \
  WS_VEC2(base##2, T, 2 * S)                                                                                 \
  WS_VEC3(base##3, T, S)                                                                                     \
  WS_VEC4(base##4, T, 4 * S)

WS_VEC_ALL(char, signed char, 1)
WS_VEC_ALL(uchar, unsigned char, 1)
WS_VEC_ALL(short, short, 2)
WS_VEC_ALL(ushort, unsigned short, 2)
WS_VEC_ALL(int, int, 4)
WS_VEC_ALL(float, float, 4)
WS_VEC1(uint1, unsigned int, 4)
WS_VEC2(uint2, unsigned int, 8)
WS_VEC4(uint4, unsigned int, 16)
WS_VEC1(long1, long, 8)
WS_VEC2(long2, long, 16)
WS_VEC1(ulong1, unsigned long, 8)
WS_VEC2(ulong2, unsigned long, 16)
WS_VEC1(longlong1, long long, 8)
WS_VEC2(longlong2, long long, 16)
WS_VEC1(ulonglong1, unsigned long long, 8)
WS_VEC2(ulonglong2, unsigned long long, 16)
WS_VEC1(double1, double, 8)
WS_VEC2(double2, double, 16)

/* uint3 and dim3 are plain structs (not typedefs of unnamed ones): clang's
 * __clang_cuda_builtin_vars.h forward-declares both by these names. */
struct uint3 {
  unsigned int x, y, z;
};
typedef struct uint3 uint3;
static __inline__ __host__ __device__ uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) {
  uint3 v = {x, y, z};
  return v;
}

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
typedef struct dim3 dim3;

#undef WS_VEC1
#undef WS_VEC2
#undef WS_VEC3
#undef WS_VEC4
#undef WS_VEC_ALL

/* The conversions clang's builtin-variable header declares and leaves to
 * the runtime header to define. */
#define WS_BUILTIN_CONVERSIONS(T)                                                                            \
  __device__ inline T::operator dim3() const { return dim3(x, y, z); }                                       \
  __device__ inline T::operator uint3() const { return uint3{x, y, z}; }
WS_BUILTIN_CONVERSIONS(__cuda_builtin_threadIdx_t)
WS_BUILTIN_CONVERSIONS(__cuda_builtin_blockIdx_t)
WS_BUILTIN_CONVERSIONS(__cuda_builtin_blockDim_t)
WS_BUILTIN_CONVERSIONS(__cuda_builtin_gridDim_t)
#undef WS_BUILTIN_CONVERSIONS

#endif

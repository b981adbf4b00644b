/* cuda_runtime_api.h - host-side declarations of the common CUDA runtime
 * API (cudaMalloc, cudaMemcpy, streams, events, errors) and the launch
 * configuration call clang needs for <<<...>>>.
 *
 * Design: warpscope compiles only device code (--cuda-device-only), but
 * clang still parses and type-checks the host code of a .cu file; these
 * declarations let a typical sample with a main() compile. They are never
 * defined: host code is not generated, the simulator's runtime plays the
 * host's part. */
#ifndef WARPSCOPE_CUDA_RUNTIME_API_H
#define WARPSCOPE_CUDA_RUNTIME_API_H

#include <stddef.h>

#include "vector_types.h"

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotReady = 600,
  cudaErrorUnknown = 999
} cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
};

#define cudaStreamNonBlocking 0x01
#define cudaMemAttachGlobal 0x01

extern "C" {
cudaError_t cudaMalloc(void **ptr, size_t size_bytes);
cudaError_t cudaMallocManaged(void **ptr, size_t size_bytes, unsigned flags = cudaMemAttachGlobal);
cudaError_t cudaMallocHost(void **ptr, size_t size_bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count_bytes, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count_bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemset(void *dst, int value, size_t count_bytes);
cudaError_t cudaMemsetAsync(void *dst, int value, size_t count_bytes, cudaStream_t stream = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count_bytes,
                               size_t offset_bytes = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count_bytes, size_t offset_bytes = 0,
                                 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem_bytes,
                             cudaStream_t stream);
/* What clang calls for kernel<<<grid, block, smem, stream>>>(...): the name
 * depends on the CUDA version clang assumes, so both are declared. */
int cudaConfigureCall(dim3 grid, dim3 block, size_t smem_bytes = 0, cudaStream_t stream = 0);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem_bytes = 0, void *stream = 0);
}

/* The C++ conveniences of the real header: typed pointers and symbols. */
template <class T> static inline cudaError_t cudaMalloc(T **ptr, size_t size_bytes) {
  return cudaMalloc((void **)ptr, size_bytes);
}
template <class T>
static inline cudaError_t cudaMallocManaged(T **ptr, size_t size_bytes,
                                            unsigned flags = cudaMemAttachGlobal) {
  return cudaMallocManaged((void **)ptr, size_bytes, flags);
}
template <class T> static inline cudaError_t cudaMallocHost(T **ptr, size_t size_bytes) {
  return cudaMallocHost((void **)ptr, size_bytes);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count_bytes,
                                             size_t offset_bytes = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol((const void *)&symbol, src, count_bytes, offset_bytes, kind);
}
template <class T>
static inline cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value) {
  return cudaFuncSetAttribute((const void *)func, attr, value);
}

#endif

/* cublas_v2.h - host-side declarations only, so a .cu file whose host code
 * calls cuBLAS still compiles for the device (nothing here is defined). */
#ifndef WARPSCOPE_CUBLAS_V2_H
#define WARPSCOPE_CUBLAS_V2_H

typedef struct cublasContext *cublasHandle_t;
typedef enum cublasStatus { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;
typedef enum cublasOperation { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;

extern "C" {
cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                           int n, int k, const float *alpha, const float *a, int lda, const float *b, int ldb,
                           const float *beta, float *c, int ldc);
}

#endif

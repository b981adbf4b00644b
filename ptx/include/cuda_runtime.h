/* cuda_runtime.h - the CUDA runtime header a .cu file includes: vector
 * types, the device-side subset (device_functions.h) and the host API's
 * declarations (cuda_runtime_api.h). The prelude includes it in every
 * translation unit, as nvcc does. */
#ifndef WARPSCOPE_CUDA_RUNTIME_H
#define WARPSCOPE_CUDA_RUNTIME_H

#include "cuda_runtime_api.h"
#include "device_functions.h"
#include "vector_types.h"

#endif

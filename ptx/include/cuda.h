/* cuda.h - everything it holds under nvcc is in cuda_runtime.h here
 * (the driver API is not provided). */
#include "cuda_runtime.h"

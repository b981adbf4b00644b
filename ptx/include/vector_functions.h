/* vector_functions.h - the make_* constructors, which vector_types.h
 * already defines (one file, so a type and its constructor cannot drift). */
#include "vector_types.h"

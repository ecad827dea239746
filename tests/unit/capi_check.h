/* CHECK for the plain-C tests of the C API: on failure, print the condition
 * and zt_last_error() and return 1 from main. */
#ifndef ZT_CAPI_CHECK_H_
#define ZT_CAPI_CHECK_H_

#include <stdio.h>

#include "ztensor/ztensor.h"

#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "%s:%d: CHECK failed: %s (%s)\n", __FILE__,      \
              __LINE__, #cond, zt_last_error());                       \
      return 1;                                                        \
    }                                                                  \
  } while (0)

#endif /* ZT_CAPI_CHECK_H_ */

/* Files whose components share bytes, or whose names hold NUL, are refused
 * on open through the C API as through Python and zt verify
 * (tests/corrupt/README.md): argv[1] is tests/corrupt. */
#include <stdio.h>
#include <string.h>

#include "capi_check.h"
#include "ztensor/ztensor.h"

static const char* const kRefused[] = {
    "components_alias_same_bytes.zt", "components_overlap_prefix.zt", "component_inside_another.zt",
    "component_read_as_zstd_and_raw.zt", "name_with_nul.zt", "name_with_nul_shadows_another.zt",
    "role_with_nul.zt",
};

int main(int argc, char** argv) {
  CHECK(argc == 2);
  for (size_t i = 0; i < sizeof kRefused / sizeof kRefused[0]; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], kRefused[i]);
    zt_reader* r = NULL;
    const int code = zt_reader_open(path, 0, &r);
    if (code != ZT_E_INVALID_STRUCTURE) fprintf(stderr, "%s: code %d (%s)\n", kRefused[i], code, zt_last_error());
    CHECK(code == ZT_E_INVALID_STRUCTURE && r == NULL);
  }
  return 0;
}

/* The C API's pointer contract (ztensor.h): every entry point given a NULL
 * handle or out-pointer returns ZT_E_INVALID_ARGUMENT (getters 0 / NULL)
 * instead of crashing, and the release functions accept NULL. */
#include <stdio.h>
#include <stdlib.h> /* mkstemp */
#include <string.h>
#include <unistd.h>

#include "capi_check.h"
#include "ztensor/ztensor.h"

#define INVALID(call)                                                  \
  do {                                                                 \
    CHECK((call) == ZT_E_INVALID_ARGUMENT);                            \
    CHECK(strstr(zt_last_error(), "NULL") != NULL ||                   \
          strstr(zt_last_error(), "finished") != NULL);                \
  } while (0)

static int write_sample(const char* path) {
  float values[4] = {1, 2, 3, 4};
  uint64_t shape[1] = {4};
  zt_component_input data = {"data", "f32", NULL, values, sizeof values};
  zt_writer* w = NULL;
  CHECK(zt_writer_create(path, &w) == ZT_OK);
  CHECK(zt_writer_add(w, "w", "dense", shape, 1, &data, 1, "raw", 0, NULL) == ZT_OK);
  CHECK(zt_writer_finish(w) == ZT_OK);
  /* After finish only zt_writer_free may follow. */
  INVALID(zt_writer_add(w, "w2", "dense", shape, 1, &data, 1, "raw", 0, NULL));
  INVALID(zt_writer_finish(w));
  zt_writer_free(w);
  return 0;
}

int main(void) {
  char path[] = "/tmp/zt-capi-null-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  if (write_sample(path)) return 1;

  /* Release functions accept NULL. */
  zt_reader_close(NULL);
  zt_writer_free(NULL);
  zt_buffer_free(NULL);
  zt_remote_options_free(NULL);

  /* Opening and creating. */
  zt_reader* r = (zt_reader*)1;
  INVALID(zt_reader_open(NULL, 0, &r));
  CHECK(r == NULL);
  INVALID(zt_reader_open(path, 0, NULL));
  zt_writer* w = (zt_writer*)1;
  INVALID(zt_writer_create(NULL, &w));
  CHECK(w == NULL);
  INVALID(zt_writer_create(path, NULL));

  /* Remote options and URL opens. */
  zt_remote_options* o = (zt_remote_options*)1;
  INVALID(zt_remote_options_create(NULL));
  CHECK(zt_remote_options_create(&o) == ZT_OK && o != NULL);
  INVALID(zt_remote_options_set(NULL, "max_attempts", "2"));
  INVALID(zt_remote_options_set(o, NULL, "2"));
  INVALID(zt_remote_options_set(o, "max_attempts", NULL));
  CHECK(zt_remote_options_set(o, "max_attempts", "none") == ZT_E_INVALID_ARGUMENT);
  CHECK(strstr(zt_last_error(), "max_attempts") != NULL);
  CHECK(zt_remote_options_set(o, "no_such_option", "1") == ZT_E_INVALID_ARGUMENT);
  CHECK(zt_remote_options_set(o, "max_attempts", "2") == ZT_OK);
  r = (zt_reader*)1;
  INVALID(zt_reader_open_url(NULL, o, 0, &r));
  CHECK(r == NULL);
  INVALID(zt_reader_open_url("http://127.0.0.1:1/m.zt", o, 0, NULL));
  CHECK(zt_reader_open_url(path, o, 0, &r) == ZT_E_INVALID_ARGUMENT); /* a path, not a URL */
  CHECK(r == NULL && strstr(zt_last_error(), "not an http://") != NULL);
  zt_remote_options_free(o);

  /* A NULL reader handle. */
  CHECK(zt_reader_version(NULL) == NULL);
  CHECK(strstr(zt_last_error(), "NULL") != NULL);
  CHECK(zt_reader_count(NULL) == 0);
  CHECK(strstr(zt_last_error(), "NULL") != NULL);
  CHECK(zt_reader_name(NULL, 0) == NULL);
  CHECK(strstr(zt_last_error(), "NULL") != NULL);
  zt_object_info info;
  zt_component_info ci;
  INVALID(zt_reader_object(NULL, "w", &info));
  INVALID(zt_reader_component(NULL, "w", 0, &ci));
  const void* bytes = (const void*)1;
  uint64_t len = 7;
  zt_buffer* keep = (zt_buffer*)1;
  INVALID(zt_reader_read(NULL, "w", "data", &bytes, &len, &keep));
  CHECK(bytes == NULL && len == 0 && keep == NULL);
  INVALID(zt_reader_verify(NULL));

  /* A valid reader with NULL names and out-pointers. */
  CHECK(zt_reader_open(path, 0, &r) == ZT_OK);
  CHECK(strcmp(zt_reader_version(r), "1.2.0") == 0);
  CHECK(zt_reader_count(r) == 1);
  CHECK(zt_reader_name(r, 1) == NULL);
  CHECK(strcmp(zt_error_name(ZT_E_NOT_FOUND), "not_found") == 0);
  INVALID(zt_reader_object(r, "w", NULL));
  CHECK(zt_reader_object(r, NULL, &info) == ZT_E_NOT_FOUND);
  INVALID(zt_reader_component(r, "w", 0, NULL));
  CHECK(zt_reader_component(r, NULL, 0, &ci) == ZT_E_NOT_FOUND);
  INVALID(zt_reader_read(r, NULL, "data", &bytes, &len, &keep));
  INVALID(zt_reader_read(r, "w", NULL, &bytes, &len, &keep));
  INVALID(zt_reader_read(r, "w", "data", NULL, &len, &keep));
  INVALID(zt_reader_read(r, "w", "data", &bytes, NULL, &keep));
  INVALID(zt_reader_read(r, "w", "data", &bytes, &len, NULL));
  CHECK(zt_reader_verify(r) == ZT_OK);
  zt_reader_close(r);

  /* A NULL writer handle and NULL arguments to a live writer. */
  uint64_t shape[1] = {4};
  float values[4] = {0};
  zt_component_input data = {"data", "f32", NULL, values, sizeof values};
  INVALID(zt_writer_add(NULL, "w", "dense", shape, 1, &data, 1, "raw", 0, NULL));
  INVALID(zt_writer_finish(NULL));
  CHECK(zt_writer_create(path, &w) == ZT_OK);
  INVALID(zt_writer_add(w, NULL, "dense", shape, 1, &data, 1, "raw", 0, NULL));
  INVALID(zt_writer_add(w, "w", "dense", NULL, 1, &data, 1, "raw", 0, NULL));
  INVALID(zt_writer_add(w, "w", "dense", shape, 1, NULL, 1, "raw", 0, NULL));
  zt_component_input no_data = {"data", "f32", NULL, NULL, 16};
  CHECK(zt_writer_add(w, "w", "dense", shape, 1, &no_data, 1, "raw", 0, NULL) == ZT_E_INVALID_ARGUMENT);
  zt_component_input no_dtype = {"data", NULL, NULL, values, sizeof values};
  CHECK(zt_writer_add(w, "w", "dense", shape, 1, &no_dtype, 1, "raw", 0, NULL) == ZT_E_UNKNOWN_DTYPE);
  zt_writer_free(w); /* unfinished: discarded */

  /* The code list: the count and the names agree with the C++ list. */
  CHECK(strcmp(zt_error_name(ZT_E_INTERNAL), "internal") == 0);
  CHECK(strcmp(zt_error_name(ZT_ERROR_CODE_COUNT), "unknown_error") == 0);
  CHECK(strcmp(zt_error_name(-1), "unknown_error") == 0);
  unlink(path);
  printf("capi_null_test: ok\n");
  return 0;
}

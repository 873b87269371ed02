/* Built against the release's C SDK tarball (pkg-config) by
 * scripts/test-release.sh: loads libradium, checks its version and ABI, and
 * makes an engine answer a ping. Exits non-zero on any difference. */
#include <stdio.h>
#include <string.h>
#include "radium.h"

int main(int argc, char **argv) {
  const char *want = argc > 1 ? argv[1] : NULL;
  const char *version = radium_version();
  if (want && strcmp(version, want) != 0) {
    fprintf(stderr, "libradium is %s, expected %s\n", version, want);
    return 1;
  }
  if (radium_abi_version() != RADIUM_ABI_VERSION) {
    fprintf(stderr, "ABI %u, header %u\n", radium_abi_version(), (unsigned)RADIUM_ABI_VERSION);
    return 1;
  }
  struct RadiumEngine *engine = NULL;
  struct RadiumError *error = NULL;
  if (radium_engine_new("{}", &engine, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "engine: %s\n", radium_error_message(error));
    radium_error_free(error);
    return 1;
  }
  char *answer = NULL;
  if (radium_request(engine, "{\"command\":\"ping\"}", &answer, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "request: %s\n", radium_error_message(error));
    radium_error_free(error);
    radium_engine_free(engine);
    return 1;
  }
  int ok = strstr(answer, "pong") != NULL;
  printf("radium %s (ABI %u): %s\n", version, radium_abi_version(), answer);
  radium_string_free(answer);
  radium_engine_free(engine);
  return ok ? 0 : 1;
}

/* Clipboard mode through the C door, under Xvfb (scripts/test-clipboard.sh):
 * clipboard-send puts a file's lines on the X clipboard (read back with
 * xclip while this host runs), clipboard-receive applies an answer put there
 * with xclip as one step, undo takes it back, an outside path is refused.
 * Usage: test_clipboard WORKSPACE RADIUM_HOME [nodisplay]
 * With `nodisplay` (run without DISPLAY): the clear error, nothing else. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "radium.h"

static int failures = 0;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      failures++;                                          \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
    }                                                      \
  } while (0)

static char *request(const RadiumEngine *engine, const char *json) {
  char *response = NULL;
  RadiumError *error = NULL;
  if (radium_request(engine, json, &response, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "radium_request failed: %s\n", radium_error_message(error));
    radium_error_free(error);
    exit(2);
  }
  return response;
}

static void run(const char *command, char *out, size_t size) {
  FILE *p = popen(command, "r");
  size_t n = p ? fread(out, 1, size - 1, p) : 0;
  out[n] = '\0';
  if (p) pclose(p);
}

static void read_file(const char *path, char *out, size_t size) {
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(out, 1, size - 1, f) : 0;
  out[n] = '\0';
  if (f) fclose(f);
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  char config[1024], path[1024], text[4096], cmd[2048];
  snprintf(config, sizeof config, "{\"workspace\":\"%s\",\"radium_home\":\"%s\"}", argv[1], argv[2]);
  RadiumEngine *engine = NULL;
  RadiumError *error = NULL;
  if (radium_engine_new(config, &engine, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "engine: %s\n", radium_error_message(error));
    return 2;
  }

  if (argc > 3 && strcmp(argv[3], "nodisplay") == 0) {
    char *e = request(engine, "{\"command\":\"clipboard-receive\"}");
    CHECK(strstr(e, "\"code\":\"clipboard\"") != NULL, "%s", e);
    CHECK(strstr(e, "neither DISPLAY (X11) nor WAYLAND_DISPLAY") != NULL, "%s", e);
    radium_string_free(e);
    radium_engine_free(engine);
    if (failures) return 1;
    printf("C door: no display is a clear error\n");
    return 0;
  }

  char *r = request(engine,
      "{\"command\":\"clipboard-send\",\"args\":{\"path\":\"src/lib.c\",\"start_line\":2,\"end_line\":2}}");
  CHECK(strstr(r, "\"copied\":true") != NULL, "%s", r);
  radium_string_free(r);
  run("xclip -o -selection clipboard", text, sizeof text);
  CHECK(strstr(text, "```c:src/lib.c\nint two(void) { return 2; }\n```") != NULL, "clipboard: %s", text);

  snprintf(cmd, sizeof cmd,
      "printf 'Done:\\n\\n```c:src/lib.c\\nint one(void) { return 1; }\\nint two(void) { return 22; }\\n```\\n' | xclip -i -selection clipboard");
  CHECK(system(cmd) == 0, "xclip -i");
  r = request(engine, "{\"command\":\"clipboard-receive\",\"args\":{\"apply\":true}}");
  CHECK(strstr(r, "\"applied\":true") != NULL, "%s", r);
  radium_string_free(r);
  snprintf(path, sizeof path, "%s/src/lib.c", argv[1]);
  read_file(path, text, sizeof text);
  CHECK(strstr(text, "return 22;") != NULL, "applied: %s", text);
  r = request(engine, "{\"command\":\"undo\"}");
  CHECK(strstr(r, "\"ok\":true") != NULL, "%s", r);
  radium_string_free(r);
  read_file(path, text, sizeof text);
  CHECK(strstr(text, "return 2;") != NULL, "undone: %s", text);

  CHECK(system("printf '```c:../escape.c\\nx\\n```\\n' | xclip -i -selection clipboard") == 0, "xclip -i");
  r = request(engine, "{\"command\":\"clipboard-receive\",\"args\":{\"apply\":true}}");
  CHECK(strstr(r, "\"code\":\"outside_project\"") != NULL, "%s", r);
  radium_string_free(r);

  radium_engine_free(engine);
  if (failures) return 1;
  printf("C door: clipboard ok\n");
  return 0;
}

/* Clipboard mode through the C door, under Xvfb (scripts/test-clipboard.sh):
 * clipboard-send puts a file's lines on the X clipboard (read back with
 * xclip while this host runs); receiving before anything else was copied is
 * an error, never the sent text read back as an answer; clipboard-receive
 * applies an answer put there with xclip as one step, undo takes it back; a
 * block answering the sent range replaces that range only; a snippet that
 * would delete most of the file is refused unless `whole_file` asks for it;
 * an outside path is refused.
 * Usage: test_clipboard WORKSPACE RADIUM_HOME [nodisplay]
 * With `nodisplay` (run without DISPLAY): the clear error, nothing else. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Puts `text` on the clipboard with xclip and waits (up to 30 s) until the
 * clipboard shows it: `xclip -i` returns before the process it leaves in the
 * background has told the X server it owns the clipboard, so on a busy
 * machine a reader right after it would still get the old owner's text. */
static int copy(const char *text) {
  static char shown[8192];
  FILE *p = popen("xclip -i -selection clipboard", "w");
  if (!p) return 0;
  fputs(text, p);
  if (pclose(p) != 0) return 0;
  struct timespec tick = {0, 100 * 1000 * 1000};
  for (int i = 0; i < 300; i++) {
    run("xclip -o -selection clipboard 2>/dev/null", shown, sizeof shown);
    if (strcmp(shown, text) == 0) return 1;
    nanosleep(&tick, NULL);
  }
  return 0;
}

static const char *LIB = "int one(void) { return 1; }\nint two(void) { return 2; }\nint three(void) { return 3; }\n";

/* A clipboard-receive with `args`, its response checked for `expect`. */
static void receive(const RadiumEngine *engine, const char *args, const char *expect, const char *expect2) {
  char json[512];
  snprintf(json, sizeof json, "{\"command\":\"clipboard-receive\",\"args\":%s}", args);
  char *r = request(engine, json);
  CHECK(strstr(r, expect) != NULL, "%s: no %s in %s", args, expect, r);
  CHECK(expect2 == NULL || strstr(r, expect2) != NULL, "%s: no %s in %s", args, expect2, r);
  radium_string_free(r);
}

static void undo(const RadiumEngine *engine) {
  char *r = request(engine, "{\"command\":\"undo\"}");
  CHECK(strstr(r, "\"ok\":true") != NULL, "%s", r);
  radium_string_free(r);
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  char config[1024], path[1024], text[4096];
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
  CHECK(strstr(text, "```c:src/lib.c lines=2\nint two(void) { return 2; }\n```") != NULL, "clipboard: %s", text);
  snprintf(path, sizeof path, "%s/src/lib.c", argv[1]);

  /* Nothing copied since the send: the clipboard holds radium's own text. */
  receive(engine, "{\"apply\":true}", "\"code\":\"clipboard\"", "still holds the text radium copied");
  read_file(path, text, sizeof text);
  CHECK(strcmp(text, LIB) == 0, "own text applied: %s", text);

  CHECK(copy("Done:\n\n```c:src/lib.c\nint one(void) { return 1; }\nint two(void) { return 22; }\n```\n"), "copy");
  receive(engine, "{\"apply\":true}", "\"applied\":true", NULL);
  read_file(path, text, sizeof text);
  CHECK(strcmp(text, "int one(void) { return 1; }\nint two(void) { return 22; }\n") == 0, "applied: %s", text);
  undo(engine);
  read_file(path, text, sizeof text);
  CHECK(strcmp(text, LIB) == 0, "undone: %s", text);

  /* A block answering the sent range replaces line 2 only. */
  CHECK(copy("```c:src/lib.c lines=2\nint two(void) { return 22; }\n```\n"), "copy");
  receive(engine, "{\"apply\":true}", "\"applied\":true", NULL);
  read_file(path, text, sizeof text);
  CHECK(strcmp(text, "int one(void) { return 1; }\nint two(void) { return 22; }\nint three(void) { return 3; }\n") == 0,
        "range applied: %s", text);
  undo(engine);

  /* The same line named as the whole file is a snippet: refused... */
  CHECK(copy("```c:src/lib.c\nint two(void) { return 22; }\n```\n"), "copy");
  receive(engine, "{\"apply\":true}", "\"code\":\"edit\"", "would delete most of the file");
  read_file(path, text, sizeof text);
  CHECK(strcmp(text, LIB) == 0, "snippet applied: %s", text);
  /* ...unless asked for. */
  receive(engine, "{\"apply\":true,\"whole_file\":true}", "\"applied\":true", NULL);
  read_file(path, text, sizeof text);
  CHECK(strcmp(text, "int two(void) { return 22; }\n") == 0, "whole_file: %s", text);
  undo(engine);
  read_file(path, text, sizeof text);
  CHECK(strcmp(text, LIB) == 0, "undone: %s", text);
  receive(engine, "{\"apply\":true,\"whole_file\":1}", "`whole_file` must be true or false", NULL);

  CHECK(copy("```c:../escape.c\nx\n```\n"), "copy");
  receive(engine, "{\"apply\":true}", "\"code\":\"outside_project\"", NULL);

  radium_engine_free(engine);
  if (failures) return 1;
  printf("C door: clipboard ok\n");
  return 0;
}

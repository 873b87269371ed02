/* Code intelligence from C: read-var answered by a language server (the
 * scripted one of tests/lsp, a real python3 process the engine starts and
 * stops), modify-var across two files as one step, undo, the syntax
 * fallback, and errors. Run under valgrind by scripts/test-c.sh:
 *   test_code <path of tests/lsp/scripted_server.py>
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "radium.h"

static int failures = 0;
#define CHECK(cond, ...)                                             \
  do {                                                               \
    if (!(cond)) {                                                   \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                  \
      fprintf(stderr, "\n");                                         \
      failures++;                                                    \
    }                                                                \
  } while (0)

static char *request(RadiumEngine *engine, const char *json) {
  char *response = NULL;
  RadiumError *error = NULL;
  if (radium_request(engine, json, &response, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "radium_request failed: %s\n", radium_error_message(error));
    radium_error_free(error);
    exit(2);
  }
  return response;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) { perror(path); exit(2); }
  fputs(text, f);
  fclose(f);
}

static int file_is(const char *path, const char *text) {
  static char got[512];
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(got, 1, sizeof got - 1, f);
  fclose(f);
  got[n] = '\0';
  return strcmp(got, text) == 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <tests/lsp/scripted_server.py>\n", argv[0]);
    return 2;
  }
  char dir[] = "/tmp/radium-c-code-XXXXXX";
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 2; }
  char ws[512], home[512], path[600], config[1400], mk[1200];
  snprintf(ws, sizeof ws, "%s/ws", dir);
  snprintf(home, sizeof home, "%s/home", dir);
  snprintf(mk, sizeof mk, "mkdir -p '%s' '%s'", ws, home);
  if (system(mk) != 0) return 2;
  snprintf(path, sizeof path, "%s/lsp.toml", home);
  snprintf(config, sizeof config, "[python]\ncommand = [\"python3\", \"%s\"]\n", argv[1]);
  write_file(path, config);
  char app[600], util[600];
  snprintf(app, sizeof app, "%s/app.py", ws);
  snprintf(util, sizeof util, "%s/util.py", ws);
  write_file(app, "from util import total\nprint(total)\n");
  write_file(util, "total = 1\n");

  RadiumEngine *engine = NULL;
  RadiumError *error = NULL;
  snprintf(config, sizeof config, "{\"workspace\":\"%s\",\"radium_home\":\"%s\"}", ws, home);
  if (radium_engine_new(config, &engine, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "engine: %s\n", radium_error_message(error));
    return 2;
  }

  char *r = request(engine, "{\"command\":\"read-var\",\"args\":{\"file\":\"app.py\",\"var\":\"total\"}}");
  CHECK(strstr(r, "\"engine\":\"lsp\"") && strstr(r, "\"files\":2"), "%s", r);
  CHECK(strstr(r, "\"file\":\"util.py\",\"line\":1,\"text\":\"total = 1\"") != NULL, "%s", r);
  radium_string_free(r);

  r = request(engine, "{\"command\":\"lsp-list\"}");
  CHECK(strstr(r, "\"language\":\"python\"") && strstr(r, "\"running\":true"), "%s", r);
  radium_string_free(r);

  r = request(engine, "{\"command\":\"modify-var\",\"args\":{\"file\":\"util.py\",\"from\":\"total\",\"to\":\"sum_\"}}");
  CHECK(strstr(r, "\"applied\":true") && strstr(r, "\"tag\":"), "%s", r);
  radium_string_free(r);
  CHECK(file_is(app, "from util import sum_\nprint(sum_)\n"), "app.py renamed");
  CHECK(file_is(util, "sum_ = 1\n"), "util.py renamed");
  r = request(engine, "{\"command\":\"undo\"}");
  CHECK(strstr(r, "\"ok\":true") != NULL, "%s", r);
  radium_string_free(r);
  CHECK(file_is(app, "from util import total\nprint(total)\n"), "undo took back app.py");
  CHECK(file_is(util, "total = 1\n"), "undo took back util.py");

  r = request(engine, "{\"command\":\"read-var\",\"args\":{\"file\":\"app.py\",\"var\":\"total\",\"engine\":\"syntax\"}}");
  CHECK(strstr(r, "\"engine\":\"syntax\"") && strstr(r, "not type-aware"), "%s", r);
  radium_string_free(r);

  r = request(engine, "{\"command\":\"read-var\",\"args\":{\"file\":\"nope.py\",\"var\":\"total\"}}");
  CHECK(strstr(r, "\"code\":\"not_found\"") != NULL, "%s", r);
  radium_string_free(r);
  r = request(engine, "{\"command\":\"rename-file\",\"args\":{\"from\":\"app.py\",\"to\":\"util.py\"}}");
  CHECK(strstr(r, "\"code\":\"edit\"") && strstr(r, "already exists"), "%s", r);
  radium_string_free(r);

  /* The engine's log has the server's start and the failed requests. */
  r = request(engine, "{\"command\":\"log\",\"args\":{\"level\":\"info\"}}");
  CHECK(strstr(r, "\"source\":\"lsp\"") && strstr(r, "started for"), "%s", r);
  CHECK(strstr(r, "read-var failed after") && strstr(r, "(not_found)"), "%s", r);
  radium_string_free(r);
  r = request(engine, "{\"command\":\"log\",\"args\":{\"since\":\"x\"}}");
  CHECK(strstr(r, "\"code\":\"invalid_argument\"") && strstr(r, "`since` must be"), "%s", r);
  radium_string_free(r);

  /* The server stops with the engine. */
  radium_engine_free(engine);
  snprintf(mk, sizeof mk, "rm -rf '%s'", dir);
  if (system(mk) != 0) return 2;
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("code intelligence from C: ok\n");
  return 0;
}

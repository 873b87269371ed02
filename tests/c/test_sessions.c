/* An agent session driven from C: the example ACP agent (a real Node
 * process) is prompted with radium_request, its events arrive on a
 * radium_session_subscribe callback, a permission is answered from inside
 * the callback, the agent's write is undone, a C before_tool hook stops a
 * chat tool call's permission request (called on an engine thread, as the
 * C door promises), and the subscription ends when the session closes. Run under valgrind by scripts/test-c.sh:
 *   test_sessions <path of examples/acp-agent/agent.mjs>
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

struct seen {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  RadiumEngine *engine;
  char session[32];
  char *events; /* every event, one a line */
  size_t len;
  int turn_ended;
  int destroyed;
  int permissions_answered;
  int calls_at_once, max_at_once;
};

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

/* The string value of `"key":"` in `json`, copied into `out`. */
static int field(const char *json, const char *key, char *out, size_t size) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *at = strstr(json, pattern);
  if (!at) return 0;
  at += strlen(pattern);
  size_t n = strcspn(at, "\"");
  if (n >= size) return 0;
  memcpy(out, at, n);
  out[n] = '\0';
  return 1;
}

static void on_event(void *user_data, const char *event_json, size_t event_len) {
  struct seen *seen = user_data;
  pthread_mutex_lock(&seen->lock);
  seen->calls_at_once++;
  if (seen->calls_at_once > seen->max_at_once) seen->max_at_once = seen->calls_at_once;
  seen->events = realloc(seen->events, seen->len + event_len + 2);
  memcpy(seen->events + seen->len, event_json, event_len);
  seen->len += event_len;
  seen->events[seen->len++] = '\n';
  seen->events[seen->len] = '\0';
  pthread_mutex_unlock(&seen->lock);

  if (strstr(event_json, "\"type\":\"permission\"")) {
    /* Answered from the callback's own thread. */
    char id[32], answer[256];
    if (field(event_json, "id", id, sizeof id)) {
      snprintf(answer, sizeof answer,
               "{\"command\":\"session-permission\",\"args\":{\"session\":\"%s\",\"id\":\"%s\",\"answer\":\"allow\"}}",
               seen->session, id);
      char *response = request(seen->engine, answer);
      if (strstr(response, "\"ok\":true")) seen->permissions_answered++;
      radium_string_free(response);
    }
  }
  pthread_mutex_lock(&seen->lock);
  seen->calls_at_once--;
  if (strstr(event_json, "\"type\":\"turn_end\"") || strstr(event_json, "\"type\":\"error\""))
    seen->turn_ended = 1;
  pthread_cond_broadcast(&seen->changed);
  pthread_mutex_unlock(&seen->lock);
}

/* A C before_tool hook: stops any tool call that names blocked.txt. */
static int hook_calls = 0;
static int32_t gate(void *user_data, const char *context_json, size_t context_len,
                    struct RadiumHookReply *reply) {
  (void)user_data;
  (void)context_len;
  __atomic_add_fetch(&hook_calls, 1, __ATOMIC_SEQ_CST);
  if (strstr(context_json, "blocked.txt") && strstr(context_json, "\"tool_call\"")) {
    RadiumError *error = NULL;
    if (radium_hook_reply_set_result(reply, "{\"action\":\"stop\",\"reason\":\"not from C\"}", &error) !=
        RADIUM_STATUS_OK) {
      radium_error_free(error);
      return 1;
    }
  }
  return 0;
}

static void on_destroy(void *user_data) {
  struct seen *seen = user_data;
  pthread_mutex_lock(&seen->lock);
  seen->destroyed++;
  pthread_cond_broadcast(&seen->changed);
  pthread_mutex_unlock(&seen->lock);
}

/* Waits (at most 30 s) until *flag is set. */
static int wait_for(struct seen *seen, int *flag) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 30;
  pthread_mutex_lock(&seen->lock);
  while (!*flag) {
    if (pthread_cond_timedwait(&seen->changed, &seen->lock, &until) != 0) break;
  }
  int done = *flag;
  pthread_mutex_unlock(&seen->lock);
  return done;
}

static char *read_file(const char *path) {
  static char text[256];
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  return text;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) { perror(path); exit(2); }
  fputs(text, f);
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <examples/acp-agent/agent.mjs>\n", argv[0]);
    return 2;
  }
  char dir[] = "/tmp/radium-c-session-XXXXXX";
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 2; }
  char ws[512], home[512], path[600], config[1400];
  snprintf(ws, sizeof ws, "%s/ws", dir);
  snprintf(home, sizeof home, "%s/home", dir);
  char mk[1200];
  snprintf(mk, sizeof mk, "mkdir -p '%s' '%s'", ws, home);
  if (system(mk) != 0) return 2;
  snprintf(path, sizeof path, "%s/agents.toml", home);
  snprintf(config, sizeof config,
           "[[agents]]\nid = \"example\"\nprotocol = \"acp\"\ncommand = [\"node\", \"%s\"]\n", argv[1]);
  write_file(path, config);
  snprintf(path, sizeof path, "%s/notes.txt", ws);
  write_file(path, "old\n");

  RadiumEngine *engine = NULL;
  RadiumError *error = NULL;
  snprintf(config, sizeof config, "{\"workspace\":\"%s\",\"radium_home\":\"%s\"}", ws, home);
  if (radium_engine_new(config, &engine, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "engine: %s\n", radium_error_message(error));
    return 2;
  }

  struct seen seen = {.engine = engine};
  pthread_mutex_init(&seen.lock, NULL);
  pthread_cond_init(&seen.changed, NULL);

  char *response = request(engine, "{\"command\":\"session-new\",\"args\":{\"agent\":\"example\"}}");
  CHECK(field(response, "session", seen.session, sizeof seen.session), "%s", response);
  radium_string_free(response);

  /* Bad input: a NULL callback, an unknown session. */
  RadiumStatus status = radium_session_subscribe(engine, seen.session, NULL, &seen, on_destroy, &error);
  CHECK(status == RADIUM_STATUS_INVALID_ARGUMENT, "status %d", (int)status);
  CHECK(strstr(radium_error_message(error), "callback") != NULL, "%s", radium_error_message(error));
  radium_error_free(error);
  error = NULL;
  status = radium_session_subscribe(engine, "s99", on_event, &seen, on_destroy, &error);
  CHECK(status == RADIUM_STATUS_INVALID_ARGUMENT, "status %d", (int)status);
  CHECK(strstr(radium_error_message(error), "no session `s99`") != NULL, "%s", radium_error_message(error));
  radium_error_free(error);
  error = NULL;
  CHECK(seen.destroyed == 0, "destroy is not called when subscribing fails");

  status = radium_session_subscribe(engine, seen.session, on_event, &seen, on_destroy, &error);
  CHECK(status == RADIUM_STATUS_OK, "subscribe: %s", error ? radium_error_message(error) : "");

  char prompt[256];
  snprintf(prompt, sizeof prompt,
           "{\"command\":\"session-prompt\",\"args\":{\"session\":\"%s\",\"prompt\":\"write notes.txt from C\"}}",
           seen.session);
  response = request(engine, prompt);
  CHECK(strstr(response, "\"running\":true") != NULL, "%s", response);
  radium_string_free(response);

  CHECK(wait_for(&seen, &seen.turn_ended), "the turn did not end: %s", seen.events ? seen.events : "");
  pthread_mutex_lock(&seen.lock);
  CHECK(strstr(seen.events, "\"type\":\"text\"") != NULL, "%s", seen.events);
  CHECK(strstr(seen.events, "\"type\":\"permission\"") != NULL, "%s", seen.events);
  CHECK(strstr(seen.events, "\"type\":\"write\"") != NULL, "%s", seen.events);
  CHECK(strstr(seen.events, "\"stop_reason\":\"end_turn\"") != NULL, "%s", seen.events);
  CHECK(seen.permissions_answered == 1, "%d", seen.permissions_answered);
  CHECK(seen.max_at_once == 1, "one call at a time: %d", seen.max_at_once);
  const char *end = strstr(seen.events, "\"type\":\"turn_end\"");
  while (end && end > seen.events && end[-1] != '\n') end--;
  char tag[64] = "";
  CHECK(end && field(end, "tag", tag, sizeof tag), "no tag: %s", seen.events);
  pthread_mutex_unlock(&seen.lock);
  CHECK(strcmp(read_file(path), "from C\n") == 0, "%s", read_file(path));

  /* The agent's write is undone like any edit. */
  char undo[200];
  snprintf(undo, sizeof undo, "{\"command\":\"undo\",\"tag\":\"%s\"}", tag);
  response = request(engine, undo);
  CHECK(strstr(response, "\"ok\":true") != NULL, "%s", response);
  radium_string_free(response);
  CHECK(strcmp(read_file(path), "old\n") == 0, "%s", read_file(path));

  /* A C hook decides a chat tool call's permission: its stop rejects the
   * call without asking (no permission event), and nothing is written. */
  status = radium_hook_register(engine, "c-gate", "before_tool", 100, NULL, 0, gate, NULL, NULL, &error);
  CHECK(status == RADIUM_STATUS_OK, "register: %s", error ? radium_error_message(error) : "");
  pthread_mutex_lock(&seen.lock);
  seen.turn_ended = 0;
  seen.len = 0;
  seen.events[0] = '\0';
  int answered = seen.permissions_answered;
  pthread_mutex_unlock(&seen.lock);
  snprintf(prompt, sizeof prompt,
           "{\"command\":\"session-prompt\",\"args\":{\"session\":\"%s\",\"prompt\":\"write blocked.txt nope\"}}",
           seen.session);
  response = request(engine, prompt);
  radium_string_free(response);
  CHECK(wait_for(&seen, &seen.turn_ended), "the turn did not end: %s", seen.events);
  pthread_mutex_lock(&seen.lock);
  CHECK(strstr(seen.events, "\"by\":\"hook:c-gate\"") != NULL, "%s", seen.events);
  CHECK(strstr(seen.events, "\"reason\":\"not from C\"") != NULL, "%s", seen.events);
  CHECK(strstr(seen.events, "\"type\":\"permission\"") == NULL, "nobody asked: %s", seen.events);
  CHECK(seen.permissions_answered == answered, "%d", seen.permissions_answered);
  pthread_mutex_unlock(&seen.lock);
  CHECK(__atomic_load_n(&hook_calls, __ATOMIC_SEQ_CST) >= 1, "the C hook was called");
  snprintf(path, sizeof path, "%s/blocked.txt", ws);
  CHECK(access(path, F_OK) != 0, "blocked.txt was written");

  /* Closing the session ends the subscription: destroy runs once. */
  snprintf(prompt, sizeof prompt, "{\"command\":\"session-close\",\"args\":{\"session\":\"%s\"}}", seen.session);
  response = request(engine, prompt);
  radium_string_free(response);
  CHECK(wait_for(&seen, &seen.destroyed), "destroy was not called");
  CHECK(seen.destroyed == 1, "%d", seen.destroyed);

  /* A subscription still open when the engine is freed ends too. */
  struct seen other = {.engine = engine};
  pthread_mutex_init(&other.lock, NULL);
  pthread_cond_init(&other.changed, NULL);
  response = request(engine, "{\"command\":\"session-new\",\"args\":{\"agent\":\"example\"}}");
  CHECK(field(response, "session", other.session, sizeof other.session), "%s", response);
  radium_string_free(response);
  status = radium_session_subscribe(engine, other.session, on_event, &other, on_destroy, &error);
  CHECK(status == RADIUM_STATUS_OK, "subscribe");
  radium_engine_free(engine);
  CHECK(wait_for(&other, &other.destroyed), "destroy after engine free");

  free(seen.events);
  free(other.events);
  snprintf(mk, sizeof mk, "rm -rf '%s'", dir);
  if (system(mk) != 0) return 2;
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("C sessions: all checks passed\n");
  return 0;
}

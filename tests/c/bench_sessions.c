/* C host benchmark: a session's streamed chunks to a C callback.
 * The example ACP agent (a real Node process) answers `stream <n> <size>`
 * with n message chunks written back to back; each turn is timed from the
 * session-prompt request to the turn_end event on the radium_session_subscribe
 * callback. Prints the time per turn and per chunk (median of the turns).
 *   bench_sessions <examples/acp-agent/agent.mjs> [turns]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "radium.h"

struct turn {
  pthread_mutex_t lock;
  pthread_cond_t ended;
  int done;
  long chunks;
};

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void on_event(void *user_data, const char *event_json, size_t event_len) {
  (void)event_len;
  struct turn *turn = user_data;
  pthread_mutex_lock(&turn->lock);
  if (strstr(event_json, "\"type\":\"text\"")) {
    turn->chunks++;
  } else if (strstr(event_json, "\"type\":\"turn_end\"") || strstr(event_json, "\"type\":\"error\"")) {
    turn->done = 1;
    pthread_cond_signal(&turn->ended);
  }
  pthread_mutex_unlock(&turn->lock);
}

static char *request(RadiumEngine *engine, const char *json) {
  char *response = NULL;
  RadiumError *error = NULL;
  if (radium_request(engine, json, &response, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "radium_request failed: %s\n", radium_error_message(error));
    exit(2);
  }
  return response;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Runs `turns` turns of `stream n size`; prints the median per turn and chunk. */
static void run(RadiumEngine *engine, const char *session, struct turn *turn, int turns, int n, int size) {
  double *times = calloc((size_t)turns, sizeof *times);
  char prompt[256];
  snprintf(prompt, sizeof prompt,
           "{\"command\":\"session-prompt\",\"args\":{\"session\":\"%s\",\"prompt\":\"stream %d %d\"}}", session, n,
           size);
  for (int i = 0; i < turns; i++) {
    pthread_mutex_lock(&turn->lock);
    turn->done = 0;
    turn->chunks = 0;
    pthread_mutex_unlock(&turn->lock);
    double start = now_us();
    char *response = request(engine, prompt);
    if (!strstr(response, "\"ok\":true")) {
      fprintf(stderr, "prompt refused: %s\n", response);
      exit(2);
    }
    radium_string_free(response);
    pthread_mutex_lock(&turn->lock);
    while (!turn->done) pthread_cond_wait(&turn->ended, &turn->lock);
    long chunks = turn->chunks;
    pthread_mutex_unlock(&turn->lock);
    times[i] = now_us() - start;
    if (chunks != n) {
      fprintf(stderr, "turn %d: %ld chunks, expected %d\n", i, chunks, n);
      exit(1);
    }
  }
  qsort(times, (size_t)turns, sizeof *times, compare);
  double median = times[turns / 2];
  printf("stream %d x %d B: %.2f ms per turn, %.2f us per chunk (median of %d turns)\n", n, size, median / 1e3,
         median / n, turns);
  free(times);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <examples/acp-agent/agent.mjs> [turns]\n", argv[0]);
    return 2;
  }
  int turns = argc > 2 ? atoi(argv[2]) : 20;
  if (turns < 1) turns = 1;
  char dir[] = "/tmp/radium-c-bench-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char home[512], path[600], config[1400];
  snprintf(home, sizeof home, "%s", dir);
  snprintf(path, sizeof path, "%s/agents.toml", home);
  FILE *f = fopen(path, "w");
  if (!f) return 2;
  fprintf(f, "[[agents]]\nid = \"example\"\nprotocol = \"acp\"\ncommand = [\"node\", \"%s\"]\n", argv[1]);
  fclose(f);

  RadiumEngine *engine = NULL;
  RadiumError *error = NULL;
  snprintf(config, sizeof config, "{\"workspace\":\"%s\",\"radium_home\":\"%s\"}", dir, home);
  if (radium_engine_new(config, &engine, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "engine: %s\n", radium_error_message(error));
    return 2;
  }
  double start = now_us();
  char *response = request(engine, "{\"command\":\"session-new\",\"args\":{\"agent\":\"example\"}}");
  const char *at = strstr(response, "\"session\":\"");
  if (!at) {
    fprintf(stderr, "session-new: %s\n", response);
    return 2;
  }
  char session[32];
  at += strlen("\"session\":\"");
  size_t len = strcspn(at, "\"");
  if (len >= sizeof session) return 2;
  memcpy(session, at, len);
  session[len] = '\0';
  radium_string_free(response);
  printf("session-new to ready: %.1f ms\n", (now_us() - start) / 1e3);

  struct turn turn;
  memset(&turn, 0, sizeof turn);
  pthread_mutex_init(&turn.lock, NULL);
  pthread_cond_init(&turn.ended, NULL);
  if (radium_session_subscribe(engine, session, on_event, &turn, NULL, &error) != RADIUM_STATUS_OK) {
    fprintf(stderr, "subscribe: %s\n", radium_error_message(error));
    return 2;
  }
  run(engine, session, &turn, 3, 100, 64); /* warm-up */
  run(engine, session, &turn, turns, 1000, 64);
  run(engine, session, &turn, turns, 256, 4096);
  radium_engine_free(engine);
  char rm[600];
  snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
  return system(rm) == 0 ? 0 : 2;
}

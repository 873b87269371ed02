// The floor of any relay process on this machine, for scripts/bench-acp.sh
// --floor: `floor-relay AGENT [ARGS...]` starts the agent, passes the
// editor's bytes to it as they come and its lines to the editor, and does
// nothing else. Each of the agent's lines is timed as rad acp times its own
// (RADIUM_ACP_TIMING): from the read that completed it to the return of its
// write; the figures go to that file as the same JSON when the agent's
// output ends.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static int to_agent[2], from_agent[2];
static pid_t agent;
static unsigned *samples; static size_t n, cap = 1 << 22;
static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static int wall(int fd, const char *p, size_t len) { while (len) { ssize_t w = write(fd, p, len); if (w <= 0) return -1; p += w; len -= w; } return 0; }
static void *editor_side(void *x) {
  (void)x; char buf[65536]; ssize_t r;
  while ((r = read(0, buf, sizeof buf)) > 0) if (wall(to_agent[1], buf, r)) break;
  close(to_agent[1]); kill(agent, SIGTERM); return NULL;
}
static int cmp(const void *a, const void *b) { unsigned x = *(const unsigned *)a, y = *(const unsigned *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: floor-relay AGENT [ARGS...]\n"); return 2; }
  samples = malloc(cap * sizeof *samples);
  if (!samples || pipe(to_agent) || pipe(from_agent)) return 1;
  agent = fork();
  if (agent == 0) {
    dup2(to_agent[0], 0); dup2(from_agent[1], 1);
    close(to_agent[1]); close(from_agent[0]);
    execvp(argv[1], argv + 1); _exit(127);
  }
  close(to_agent[0]); close(from_agent[1]);
  pthread_t t; pthread_create(&t, NULL, editor_side, NULL);
  static char buf[1 << 20]; size_t have = 0; ssize_t r;
  while ((r = read(from_agent[0], buf + have, sizeof buf - have)) > 0) {
    long long at = now(); have += r;
    char *start = buf, *nl;
    while ((nl = memchr(start, '\n', buf + have - start))) {
      size_t len = nl + 1 - start;
      if (wall(1, start, len)) goto out;
      long long d = now() - at; if (n < cap) samples[n++] = d > 0xffffffffLL ? 0xffffffffu : (unsigned)d;
      start = nl + 1;
    }
    have = buf + have - start; memmove(buf, start, have);
    if (have == sizeof buf) have = 0;
  }
out:;
  const char *f = getenv("RADIUM_ACP_TIMING");
  if (f && n) {
    qsort(samples, n, sizeof *samples, cmp);
    size_t r50 = (50 * n + 99) / 100, r99 = (99 * n + 99) / 100;
    FILE *o = fopen(f, "w");
    if (!o) return 1;
    fprintf(o, "{\"count\":%zu,\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f}\n", n, samples[r50 - 1] / 1000.0, samples[r99 - 1] / 1000.0, samples[n - 1] / 1000.0);
    fclose(o);
  }
  waitpid(agent, NULL, 0);
  return 0;
}

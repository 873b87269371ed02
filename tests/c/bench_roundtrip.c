/* The send-selection round trip through the C JSON door (see
 * core/examples/roundtrip.rs).
 *   bench_roundtrip <vectors> <iterations> [<rad> <hooked-home> <bare-home> <spawns>]
 * prints microseconds per round trip in-process and, given `rad`, for the
 * same two requests made the old way: one `rad request` process each
 * (posix_spawn, the answer read from a pipe), with RADIUM_HOME set to each
 * home. The measurements take turns in 15 rounds; each figure is its best
 * round (this 2-core machine's speed varies from second to second). */
#define _POSIX_C_SOURCE 200809L
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The environment with RADIUM_HOME=home (the host's own is not changed). */
static char **env_with_home(const char *home) {
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "RADIUM_HOME=", 12) != 0) env[k++] = environ[i];
    size_t len = strlen(home) + 13;
    env[k] = malloc(len);
    snprintf(env[k], len, "RADIUM_HOME=%s", home);
    env[k + 1] = NULL;
    return env;
}

/* Runs `rad request <json>` and checks its answer holds `needle`. */
static int spawn_request(const char *rad, char **env, const char *json, const char *needle) {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    char *argv[] = {(char *)rad, "request", (char *)json, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, rad, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) { close(fds[0]); return 1; }
    static char buf[1 << 16];
    size_t len = 0;
    ssize_t n;
    while ((n = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)n;
    close(fds[0]);
    buf[len] = '\0';
    int status = 0;
    waitpid(pid, &status, 0);
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0 && strstr(buf, needle));
}

#include "radium.h"

#define ROUNDS 15

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int32_t noop(void *u, const char *c, size_t n, RadiumHookReply *r) {
    (void)u; (void)c; (void)n; (void)r;
    return 0;
}

static RadiumEngine *engine;
static char *before, *after;

/* One round trip in-process. */
static int in_process(void) {
    char *a = NULL, *b = NULL;
    radium_request(engine, before, &a, NULL);
    radium_request(engine, after, &b, NULL);
    int bad = !a || !b || !strstr(a, "\"status\":\"completed\"") || !strstr(b, "\"block_count\":3");
    radium_string_free(a);
    radium_string_free(b);
    return bad;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tests/vectors/roundtrip.txt";
    long iterations = argc > 2 ? atol(argv[2]) : 2000;
    int spawning = argc > 6;
    long spawns = spawning ? atol(argv[6]) : 0;
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return 1; }
    size_t cap1 = 0, cap2 = 0;
    if (getline(&before, &cap1, f) <= 0 || getline(&after, &cap2, f) <= 0) return 1;
    fclose(f);
    before[strcspn(before, "\n")] = '\0';
    after[strcspn(after, "\n")] = '\0';
    if (radium_engine_new(NULL, &engine, NULL) != RADIUM_STATUS_OK) return 1;
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "noop-%d", i);
        radium_hook_register(engine, name, "before_tool", 100, NULL, 0, noop, NULL, NULL, NULL);
    }
    char **envs[2] = {NULL, NULL};
    if (spawning) {
        envs[0] = env_with_home(argv[4]);
        envs[1] = env_with_home(argv[5]);
    }
    for (long i = 0; i < iterations / 10; i++)
        if (in_process()) { fprintf(stderr, "bad answer\n"); return 1; }
    long per_round = iterations / ROUNDS > 0 ? iterations / ROUNDS : 1;
    long spawns_per_round = spawns / ROUNDS > 0 ? spawns / ROUNDS : 1;
    double best[3] = {1e300, 1e300, 1e300};
    for (int r = 0; r < ROUNDS; r++) {
        /* After the spawns, an untimed round warms the caches again (and
         * takes the page faults a fork leaves the parent). */
        for (long i = 0; i < per_round; i++)
            if (in_process()) { fprintf(stderr, "bad answer\n"); return 1; }
        double t0 = now_us();
        for (long i = 0; i < per_round; i++)
            if (in_process()) { fprintf(stderr, "bad answer\n"); return 1; }
        double us = (now_us() - t0) / (double)per_round;
        if (us < best[0]) best[0] = us;
        for (int k = 0; spawning && k < 2; k++) {
            t0 = now_us();
            for (long i = 0; i < spawns_per_round; i++) {
                if (spawn_request(argv[3], envs[k], before, "\"status\":\"completed\"") ||
                    spawn_request(argv[3], envs[k], after, "\"block_count\":3")) {
                    fprintf(stderr, "bad answer from %s\n", argv[3]);
                    return 1;
                }
            }
            us = (now_us() - t0) / (double)spawns_per_round;
            if (us < best[1 + k]) best[1 + k] = us;
        }
    }
    if (spawning) printf("%.1f %.1f %.1f\n", best[0], best[1], best[2]);
    else printf("%.1f\n", best[0]);
    radium_engine_free(engine);
    for (int k = 0; k < 2; k++) {
        if (!envs[k]) continue;
        for (char **e = envs[k]; *e; e++)
            if (strncmp(*e, "RADIUM_HOME=", 12) == 0) free(*e);
        free(envs[k]);
    }
    free(before);
    free(after);
    return 0;
}

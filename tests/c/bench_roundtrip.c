/* The send-selection round trip through the C JSON door (see
 * core/examples/roundtrip.rs): prints microseconds per round trip.
 * With a third argument (the path of `rad`), the same two requests are made
 * the old way instead: one `rad request` process each (posix_spawn, the
 * answer read from a pipe). */
#define _POSIX_C_SOURCE 200809L
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Runs `rad request <json>` and checks its answer holds `needle`. */
static int spawn_request(const char *rad, const char *json, const char *needle) {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    char *argv[] = {(char *)rad, "request", (char *)json, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, rad, &actions, NULL, argv, environ);
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

static int32_t noop(void *u, const char *c, size_t n, RadiumHookReply *r) {
    (void)u; (void)c; (void)n; (void)r;
    return 0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tests/vectors/roundtrip.txt";
    long iterations = argc > 2 ? atol(argv[2]) : 2000;
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return 1; }
    char *before = NULL, *after = NULL;
    size_t cap1 = 0, cap2 = 0;
    if (getline(&before, &cap1, f) <= 0 || getline(&after, &cap2, f) <= 0) return 1;
    fclose(f);
    before[strcspn(before, "\n")] = '\0';
    after[strcspn(after, "\n")] = '\0';
    if (argc > 3) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < iterations; i++) {
            if (spawn_request(argv[3], before, "\"status\":\"completed\"") ||
                spawn_request(argv[3], after, "\"block_count\":3")) {
                fprintf(stderr, "bad answer from %s\n", argv[3]);
                return 1;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%.1f\n", ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)iterations);
        return 0;
    }
    RadiumEngine *engine = NULL;
    if (radium_engine_new(NULL, &engine, NULL) != RADIUM_STATUS_OK) return 1;
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "noop-%d", i);
        radium_hook_register(engine, name, "before_tool", 100, NULL, 0, noop, NULL, NULL, NULL);
    }
    struct timespec t0, t1;
    for (long i = -iterations / 10; i < iterations; i++) {
        if (i == 0) clock_gettime(CLOCK_MONOTONIC, &t0);
        char *a = NULL, *b = NULL;
        radium_request(engine, before, &a, NULL);
        radium_request(engine, after, &b, NULL);
        if (!a || !b || !strstr(b, "\"block_count\":3")) { fprintf(stderr, "bad answer\n"); return 1; }
        radium_string_free(a);
        radium_string_free(b);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)iterations;
    printf("%.1f\n", us);
    radium_engine_free(engine);
    free(before);
    free(after);
    return 0;
}

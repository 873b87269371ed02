/* The send-selection round trip through the C JSON door (see
 * core/examples/roundtrip.rs): prints microseconds per round trip. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

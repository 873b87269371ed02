/* A C host running a 5-hook chain of C callbacks on a 4 KiB context.
 * Prints the time per radium_hooks_execute call (including parsing the
 * context JSON and freeing the outcome). Run by scripts/bench-c.sh. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "radium.h"

static int32_t noop(void *user_data, const char *context_json, size_t context_len,
                    RadiumHookReply *reply) {
    (void)user_data; (void)context_json; (void)context_len; (void)reply;
    return 0;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 20000;
    RadiumEngine *engine = NULL;
    if (radium_engine_new(NULL, &engine, NULL) != RADIUM_STATUS_OK) return 1;
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "c-noop-%d", i);
        if (radium_hook_register(engine, name, "before_tool", 100, NULL, 0, noop, NULL, NULL, NULL)
            != RADIUM_STATUS_OK) return 1;
    }
    /* A 4 KiB context: a selection of code plus the editor fields. */
    char selection[3900];
    for (size_t i = 0; i < sizeof selection - 1; i++) selection[i] = "fn main() { let x = 1; } "[i % 25];
    selection[sizeof selection - 1] = '\0';
    static char data[4200];
    int len = snprintf(data, sizeof data,
        "{\"tool_name\":\"apply\",\"file_path\":\"/work/src/main.rs\",\"language\":\"rust\","
        "\"workspace\":\"/work\",\"selection\":\"%s\"}", selection);
    char *outcome = NULL;
    for (long i = 0; i < iterations / 10; i++) { /* warm up */
        radium_hooks_execute(engine, "before_tool", data, &outcome, NULL);
        radium_string_free(outcome);
    }
    double start = now_ns();
    for (long i = 0; i < iterations; i++) {
        if (radium_hooks_execute(engine, "before_tool", data, &outcome, NULL) != RADIUM_STATUS_OK) return 1;
        radium_string_free(outcome);
    }
    double per_call = (now_ns() - start) / (double)iterations;
    printf("c_host_5_hooks_4k: context %d bytes, %ld calls, %.2f us per call\n", len, iterations, per_call / 1000.0);
    radium_engine_free(engine);
    return 0;
}

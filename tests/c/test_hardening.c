/* Inputs that once crashed a C host, each reproduced through the C door:
 *
 * - JSON nested thousands of levels deep, on a thread with a 256 KiB stack
 *   (the SIMD parser overflowed the stack when it skipped such a value);
 * - an agent that exits without reading a stdin larger than the pipe buffer,
 *   in a host that keeps SIGPIPE's default action (the write killed it).
 *
 * Run with the agent program as the first argument:
 *   test_hardening /bin/true
 * Prints "N passed, M failed" and exits non-zero on a failure.
 */

#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "radium.h"

static int g_passed;
static int g_failed;

static void check_at(bool ok, int line, const char *expr)
{
    if (ok) {
        g_passed++;
        return;
    }
    g_failed++;
    fprintf(stderr, "test_hardening.c:%d: CHECK failed: %s\n", line, expr);
}

#define CHECK(expr) check_at((expr) ? true : false, __LINE__, #expr)

/* `depth` opening brackets of `open`, `inner`, then `depth` of `close`,
 * between `prefix` and `suffix`. */
static char *nested(const char *prefix, const char *open, const char *inner, const char *close,
                    const char *suffix, size_t depth)
{
    size_t size = strlen(prefix) + depth * (strlen(open) + strlen(close)) + strlen(inner) +
                  strlen(suffix) + 1;
    char *text = malloc(size);
    if (text == NULL) {
        return NULL;
    }
    char *at = text;
    at += sprintf(at, "%s", prefix);
    for (size_t i = 0; i < depth; i++) {
        at += sprintf(at, "%s", open);
    }
    at += sprintf(at, "%s", inner);
    for (size_t i = 0; i < depth; i++) {
        at += sprintf(at, "%s", close);
    }
    sprintf(at, "%s", suffix);
    return text;
}

typedef struct {
    RadiumEngine *engine;
    const char *request;
    RadiumStatus status;
    char message[512];
} DeepCall;

static void *deep_call(void *arg)
{
    DeepCall *call = arg;
    char *response = NULL;
    RadiumError *err = NULL;
    call->status = radium_request(call->engine, call->request, &response, &err);
    if (err != NULL) {
        snprintf(call->message, sizeof call->message, "%s", radium_error_message(err));
        radium_error_free(err);
    }
    radium_string_free(response);
    return NULL;
}

static void test_deep_json(RadiumEngine *engine)
{
    /* 2,500 levels overflowed a 256 KiB stack; 100,000 go far past it. */
    char *cases[] = {
        nested("", "[", "", "]", "", 100000),
        nested("{\"command\":\"ping\",\"cwd\":", "[", "", "]", "}", 100000),
        nested("{\"command\":\"ping\",\"tag\":", "[", "1", "]", "}", 100000),
        nested("{\"command\":\"ping\",\"id\":", "{\"a\":", "1", "}", "}", 100000),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(cases[i] != NULL);
        if (cases[i] == NULL) {
            continue;
        }
        DeepCall call = {.engine = engine, .request = cases[i]};
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 << 10);
        pthread_t thread;
        CHECK(pthread_create(&thread, &attr, deep_call, &call) == 0);
        pthread_join(thread, NULL);
        pthread_attr_destroy(&attr);
        CHECK(call.status == RADIUM_STATUS_INVALID_JSON);
        CHECK(strstr(call.message, "JSON nested deeper than 127 levels is refused") != NULL);
        free(cases[i]);
    }
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return false;
    }
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static void test_sigpipe(const char *agent_program)
{
    /* SIGPIPE keeps its default action here, as in many C hosts. */
    signal(SIGPIPE, SIG_DFL);
    char home[] = "/tmp/radium-c-hardening-XXXXXX";
    CHECK(mkdtemp(home) != NULL);
    char agents[512];
    char toml[1024];
    char config[600];
    snprintf(agents, sizeof agents, "%s/agents.toml", home);
    snprintf(toml, sizeof toml, "[[agents]]\nid = \"deaf\"\ncommand = [\"%s\"]\n", agent_program);
    CHECK(write_file(agents, toml));
    snprintf(config, sizeof config, "{\"radium_home\":\"%s\"}", home);
    RadiumEngine *engine = NULL;
    RadiumError *err = NULL;
    CHECK(radium_engine_new(config, &engine, &err) == RADIUM_STATUS_OK);
    if (engine == NULL) {
        radium_error_free(err);
        return;
    }
    /* A 1 MiB prompt: far more than the 64 KiB pipe buffer. */
    size_t big = 1 << 20;
    char *request = malloc(big + 200);
    CHECK(request != NULL);
    if (request != NULL) {
        int head = sprintf(request, "{\"command\":\"step\",\"args\":{\"agent\":\"deaf\",\"prompt\":\"");
        memset(request + head, 'x', big);
        sprintf(request + head + big, "\"}}");
        for (int round = 0; round < 3; round++) {
            char *response = NULL;
            RadiumStatus status = radium_request(engine, request, &response, &err);
            /* Reaching this line is the test: the host is still alive. */
            CHECK(status == RADIUM_STATUS_OK);
            CHECK(response != NULL && strstr(response, "\"ok\":true") != NULL);
            radium_string_free(response);
        }
        free(request);
    }
    radium_engine_free(engine);
    unlink(agents);
    rmdir(home);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_hardening AGENT_PROGRAM (one that reads no stdin)\n");
        return 2;
    }
    RadiumEngine *engine = NULL;
    RadiumError *err = NULL;
    if (radium_engine_new(NULL, &engine, &err) != RADIUM_STATUS_OK) {
        fprintf(stderr, "%s\n", radium_error_message(err));
        radium_error_free(err);
        return 1;
    }
    test_deep_json(engine);
    radium_engine_free(engine);
    test_sigpipe(argv[1]);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed > 0 ? 1 : 0;
}

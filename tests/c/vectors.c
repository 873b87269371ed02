/* The shared request vectors through the C JSON door, plus an agent step.
 *   vectors <tests/vectors/requests.txt> <examples/agents/example-agent.sh>
 * Each vector is two lines: a request and the exact expected response text. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "radium.h"

static int passed, failed;

static void check(int ok, const char *what, const char *detail) {
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "FAIL %s\n  %s\n", what, detail ? detail : "");
    }
}

static char *request(RadiumEngine *engine, const char *json) {
    char *out = NULL;
    RadiumError *err = NULL;
    if (radium_request(engine, json, &out, &err) != RADIUM_STATUS_OK) {
        fprintf(stderr, "radium_request failed: %s\n", radium_error_message(err));
        radium_error_free(err);
        return NULL;
    }
    return out;
}

static void run_vectors(RadiumEngine *engine, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); failed++; return; }
    char *req = NULL, *want = NULL;
    size_t req_cap = 0, want_cap = 0;
    while (getline(&req, &req_cap, f) > 0 && getline(&want, &want_cap, f) > 0) {
        req[strcspn(req, "\n")] = '\0';
        want[strcspn(want, "\n")] = '\0';
        char *got = request(engine, req);
        check(got && strcmp(got, want) == 0, req, got);
        radium_string_free(got);
    }
    free(req);
    free(want);
    fclose(f);
}

static void run_step(const char *agent) {
    char dir[] = "/tmp/radium-c-step-XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); failed++; return; }
    char path[512], config[1024], req[2048];
    snprintf(path, sizeof path, "%s/.radium", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/.radium/agents.toml", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "[[agents]]\nid = \"example\"\ncommand = [\"%s\"]\n", agent);
    fclose(f);
    snprintf(config, sizeof config, "{\"workspace\":\"%s\",\"radium_home\":\"%s\"}", dir, dir);
    RadiumEngine *engine = NULL;
    check(radium_engine_new(config, &engine, NULL) == RADIUM_STATUS_OK, "engine with a workspace", config);
    snprintf(req, sizeof req, "{\"command\":\"trust\",\"args\":{\"path\":\"%s\"}}", dir);
    char *trusted = request(engine, req);
    check(trusted && strstr(trusted, "\"trusted\":true"), "trust the workspace", trusted);
    radium_string_free(trusted);
    snprintf(req, sizeof req,
             "{\"command\":\"step\",\"args\":{\"agent\":\"example\",\"prompt\":\"review\","
             "\"context\":{\"file_path\":\"%s/src/lib.c\",\"selection\":\"int x;\",\"workspace\":\"%s\"}}}",
             dir, dir);
    char *got = request(engine, req);
    check(got && strstr(got, "\"ok\":true"), "step ok", got);
    check(got && strstr(got, "\"content\":\"// reviewed by the example agent\\nint x;\\n\""), "step code block", got);
    check(got && strstr(got, "\"file_path\":\"src/lib.c\""), "step file path annotation", got);
    radium_string_free(got);
    got = request(engine, "{\"command\":\"step\",\"args\":{\"agent\":\"ghost\"}}");
    check(got && strstr(got, "\"code\":\"unknown_agent\""), "unknown agent", got);
    radium_string_free(got);
    /* radium's catalogue of agents, and an install of an id it does not hold. */
    got = request(engine, "{\"command\":\"agents-list\"}");
    check(got && strstr(got, "\"id\":\"gemini\"") && strstr(got, "\"package\":\"@google/gemini-cli\""),
          "agents-list: the catalogue", got);
    radium_string_free(got);
    got = request(engine, "{\"command\":\"agents-install\",\"args\":{\"agent\":\"ghost\"}}");
    check(got && strstr(got, "\"code\":\"invalid_argument\"") && strstr(got, "not in radium's catalogue"),
          "agents-install of an id not in the catalogue", got);
    radium_string_free(got);
    radium_engine_free(engine);
    unlink(path);
    snprintf(path, sizeof path, "%s/trust.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/.radium", dir);
    rmdir(path);
    rmdir(dir);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: vectors requests.txt example-agent.sh\n"); return 2; }
    RadiumEngine *engine = NULL;
    if (radium_engine_new(NULL, &engine, NULL) != RADIUM_STATUS_OK) return 1;
    run_vectors(engine, argv[1]);
    radium_engine_free(engine);
    run_step(argv[2]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

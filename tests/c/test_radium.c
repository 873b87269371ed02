/*
 * test_radium.c: a self-checking test of the radium C ABI (include/radium.h).
 *
 * Exercises every exported function, every documented misuse, hook
 * behaviours (priority, stop, failures, matchers, enable/disable,
 * unregister, time limits), the JSON request door, use after destroy and
 * concurrent use from several threads. Everything the library hands out is
 * freed, so the program is clean under
 * `valgrind --leak-check=full --error-exitcode=1`.
 *
 * Build (from the repository root):
 *   gcc -std=c11 -Wall -Wextra -Werror -pthread -I include tests/c/test_radium.c \
 *       -o /tmp/t_c_shared -L target/debug -lradium -Wl,-rpath,$PWD/target/debug
 *   gcc -std=c11 -Wall -Wextra -Werror -pthread -I include tests/c/test_radium.c \
 *       -o /tmp/t_c_static target/debug/libradium.a -lpthread -ldl -lm
 *
 * Output: failed checks on stderr (file:line and expression), then one line
 * `N passed, M failed` on stdout; the exit status is non-zero if M > 0.
 */

#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "radium.h"

/* ------------------------------------------------------------------ checks */

static int g_passed;
static int g_failed;

static void check_at(bool ok, const char *file, int line, const char *expr)
{
    if (ok) {
        g_passed++;
        return;
    }
    g_failed++;
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
}

#define CHECK(expr) check_at((expr) ? true : false, __FILE__, __LINE__, #expr)

static void check_has_at(const char *json, const char *needle, bool want, const char *file,
                         int line)
{
    bool found = json != NULL && strstr(json, needle) != NULL;
    char expr[600];
    snprintf(expr, sizeof expr, "text %s `%s`", want ? "contains" : "does not contain", needle);
    check_at(found == want, file, line, expr);
    if (found != want) {
        fprintf(stderr, "    text: %s\n", json != NULL ? json : "(null)");
    }
}

/* The JSON (or message) `json` contains / does not contain `needle`. */
#define CHECK_HAS(json, needle) check_has_at((json), (needle), true, __FILE__, __LINE__)
#define CHECK_LACKS(json, needle) check_has_at((json), (needle), false, __FILE__, __LINE__)

/* A call failed with status `want`, stored an error with that status whose
 * message contains `needle` and `needle2` (when not NULL); frees the error. */
static void check_fail_at(RadiumStatus got, RadiumError **err, RadiumStatus want,
                          const char *needle, const char *needle2, const char *file, int line,
                          const char *expr)
{
    char text[700];
    snprintf(text, sizeof text, "%s returns status %d (got %d)", expr, (int)want, (int)got);
    check_at(got == want, file, line, text);
    if (got != want && *err != NULL) {
        fprintf(stderr, "    message: %s\n", radium_error_message(*err));
    }
    check_at(*err != NULL, file, line, "the failing call stored a RadiumError");
    if (*err != NULL) {
        check_at(radium_error_status(*err) == want, file, line,
                 "radium_error_status(error) is the returned status");
        if (needle != NULL) {
            check_has_at(radium_error_message(*err), needle, true, file, line);
        }
        if (needle2 != NULL) {
            check_has_at(radium_error_message(*err), needle2, true, file, line);
        }
        radium_error_free(*err);
        *err = NULL;
    }
}

#define CHECK_FAIL(call, err, want, needle) \
    check_fail_at((call), &(err), (want), (needle), NULL, __FILE__, __LINE__, #call)
#define CHECK_FAIL2(call, err, want, needle, needle2) \
    check_fail_at((call), &(err), (want), (needle), (needle2), __FILE__, __LINE__, #call)

/* A call succeeded and left `*err` untouched (NULL). */
static void check_ok_at(RadiumStatus got, RadiumError **err, const char *file, int line,
                        const char *expr)
{
    char text[600];
    snprintf(text, sizeof text, "%s returns RADIUM_STATUS_OK (got %d)", expr, (int)got);
    check_at(got == RADIUM_STATUS_OK, file, line, text);
    if (*err != NULL) {
        fprintf(stderr, "    message: %s\n", radium_error_message(*err));
        radium_error_free(*err);
        *err = NULL;
    }
}

#define CHECK_OK(call, err) check_ok_at((call), &(err), __FILE__, __LINE__, #call)

/* A pointer no radium function ever returns: to check that out-parameters
 * are left untouched, and as a handle that was never created. */
static char g_sentinel_byte;
#define SENTINEL_ENGINE ((RadiumEngine *)(void *)&g_sentinel_byte)
#define SENTINEL_ERROR ((RadiumError *)(void *)&g_sentinel_byte)
#define SENTINEL_STRING (&g_sentinel_byte)

/* ------------------------------------------------------------------- hooks */

typedef enum HookMode {
    MODE_CONTINUE,     /* returns 0, no result */
    MODE_TAG,          /* modify: data = {"last": "<name>"}; appends the name to g_order */
    MODE_STOP,         /* stop, reason "frozen" */
    MODE_FAIL_MESSAGE, /* returns 7 after radium_hook_reply_set_error("disk on fire") */
    MODE_FAIL_BARE,    /* returns 3 without a message */
    MODE_BAD_RESULT,   /* misuses the reply (invalid results, NULLs...), then returns 0 */
    MODE_SOFT_ERROR,   /* result {"action":"error","message":"soft failure"} */
    MODE_SELF_REMOVE,  /* unregisters itself while its chain runs */
    MODE_SLOW,         /* sleeps 60 ms, then answers modify {"slow":true} */
    MODE_THREAD_TAG,   /* thread-safe: modify data = {"seen":"t_a"} */
} HookMode;

typedef struct HookState {
    char name[64];
    HookMode mode;
    const char *expect;         /* a substring every context must contain, or NULL */
    atomic_int calls;           /* times the callback ran */
    atomic_int misses;          /* contexts lacking `expect`, or with a wrong length */
    atomic_int *destroyed;      /* incremented by hook_destroy (may be NULL) */
    const RadiumEngine *engine; /* MODE_SELF_REMOVE: where to unregister from */
} HookState;

/* The names of MODE_TAG hooks in the order they ran (main thread only). */
static char g_order[512];

static HookState *state_new(const char *name, HookMode mode, const char *expect,
                            atomic_int *destroyed)
{
    HookState *s = calloc(1, sizeof *s);
    if (s == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    snprintf(s->name, sizeof s->name, "%s", name);
    s->mode = mode;
    s->expect = expect;
    atomic_init(&s->calls, 0);
    atomic_init(&s->misses, 0);
    s->destroyed = destroyed;
    s->engine = NULL;
    return s;
}

/* The RadiumDestroyFn of every heap-allocated hook state. */
static void hook_destroy(void *user_data)
{
    HookState *s = user_data;
    if (s->destroyed != NULL) {
        atomic_fetch_add(s->destroyed, 1);
    }
    free(s);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Misuse of a live reply; runs on the main thread only (it uses CHECK). */
static void reply_misuse(RadiumHookReply *reply)
{
    RadiumError *err = NULL;
    CHECK_FAIL2(radium_hook_reply_set_result(reply, "{\"action\":\"explode\"}", &err), err,
                RADIUM_STATUS_INVALID_ARGUMENT, "invalid hook result", "explode");
    CHECK(radium_hook_reply_set_result(reply, "{\"action\":\"explode\"}", NULL) ==
          RADIUM_STATUS_INVALID_ARGUMENT);
    CHECK_FAIL(radium_hook_reply_set_result(reply, "[1]", &err), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "expected an object");
    CHECK_FAIL(radium_hook_reply_set_result(reply, "{\"action\":\"modify\"}", &err), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "needs a `data` field");
    CHECK_FAIL(radium_hook_reply_set_result(reply, NULL, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "result_json");
    CHECK_FAIL(radium_hook_reply_set_result(reply, "{", &err), err, RADIUM_STATUS_INVALID_JSON,
               "result_json");
    CHECK_FAIL(radium_hook_reply_set_result(reply, "\"\xff\"", &err), err,
               RADIUM_STATUS_INVALID_UTF8, "result_json");
    CHECK_FAIL(radium_hook_reply_set_error(reply, NULL, &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "message");
    CHECK_FAIL(radium_hook_reply_set_error(reply, "\xff\xfe", &err), err,
               RADIUM_STATUS_INVALID_UTF8, "message");
    /* A message set by a hook that then returns 0 is not used. */
    CHECK_OK(radium_hook_reply_set_error(reply, "ignored message", &err), err);
}

/* The RadiumHookFn of every test hook. */
static int32_t hook_callback(void *user_data, const char *context, size_t context_len,
                             RadiumHookReply *reply)
{
    HookState *s = user_data;
    atomic_fetch_add(&s->calls, 1);
    if (context == NULL || strlen(context) != context_len ||
        strstr(context, "\"hook_type\":\"") == NULL ||
        (s->expect != NULL && strstr(context, s->expect) == NULL)) {
        atomic_fetch_add(&s->misses, 1);
    }
    char buf[256];
    switch (s->mode) {
    case MODE_CONTINUE:
        return 0;
    case MODE_TAG:
        strncat(g_order, s->name, sizeof g_order - strlen(g_order) - 1);
        strncat(g_order, ",", sizeof g_order - strlen(g_order) - 1);
        snprintf(buf, sizeof buf, "{\"action\":\"modify\",\"data\":{\"last\":\"%s\"}}", s->name);
        return radium_hook_reply_set_result(reply, buf, NULL) == RADIUM_STATUS_OK ? 0 : 1;
    case MODE_STOP:
        return radium_hook_reply_set_result(reply, "{\"action\":\"stop\",\"reason\":\"frozen\"}",
                                            NULL) == RADIUM_STATUS_OK
                   ? 0
                   : 1;
    case MODE_FAIL_MESSAGE:
        if (radium_hook_reply_set_error(reply, "disk on fire", NULL) != RADIUM_STATUS_OK) {
            atomic_fetch_add(&s->misses, 1);
        }
        return 7;
    case MODE_FAIL_BARE:
        return 3;
    case MODE_BAD_RESULT:
        reply_misuse(reply);
        return 0;
    case MODE_SOFT_ERROR:
        return radium_hook_reply_set_result(
                   reply, "{\"action\":\"error\",\"message\":\"soft failure\"}", NULL) ==
                       RADIUM_STATUS_OK
                   ? 0
                   : 1;
    case MODE_SELF_REMOVE: {
        RadiumError *err = NULL;
        CHECK_OK(radium_hook_unregister(s->engine, s->name, &err), err);
        /* The running chain still holds the hook: not destroyed yet. */
        CHECK(s->destroyed != NULL && atomic_load(s->destroyed) == 0);
        char *list = NULL;
        CHECK_OK(radium_request(s->engine, "{\"command\":\"hooks-list\"}", &list, &err), err);
        CHECK_LACKS(list, "\"name\":\"self_rm\"");
        radium_string_free(list);
        return 0;
    }
    case MODE_SLOW:
        sleep_ms(60);
        return radium_hook_reply_set_result(reply, "{\"data\":{\"slow\":true}}", NULL) ==
                       RADIUM_STATUS_OK
                   ? 0
                   : 1;
    case MODE_THREAD_TAG:
        if (radium_hook_reply_set_result(reply, "{\"data\":{\"seen\":\"t_a\"}}", NULL) !=
            RADIUM_STATUS_OK) {
            atomic_fetch_add(&s->misses, 1);
            return 1;
        }
        return 0;
    }
    return 1;
}

/* Registers a heap-allocated state as hook `s->name`; on failure the caller
 * keeps (and here frees) the state. Returns the status. */
static RadiumStatus add_hook(const RadiumEngine *engine, HookState *s, const char *hook_type,
                             int32_t priority, const char *matcher, uint64_t timeout_ms,
                             RadiumError **err)
{
    RadiumStatus status = radium_hook_register(engine, s->name, hook_type, priority, matcher,
                                               timeout_ms, hook_callback, s, hook_destroy, err);
    if (status != RADIUM_STATUS_OK) {
        free(s);
    }
    return status;
}

#define ADD_HOOK(engine, state, type, prio, matcher, timeout, err)                            \
    CHECK_OK(add_hook((engine), (state), (type), (prio), (matcher), (timeout), &(err)), err)

/* Runs a chain, expecting success; returns the outcome (caller frees). */
static char *execute_at(const RadiumEngine *engine, const char *type, const char *data,
                        const char *file, int line)
{
    RadiumError *err = NULL;
    char *out = NULL;
    check_ok_at(radium_hooks_execute(engine, type, data, &out, &err), &err, file, line,
                "radium_hooks_execute");
    check_at(out != NULL, file, line, "radium_hooks_execute wrote an outcome");
    return out;
}
#define EXECUTE(engine, type, data) execute_at((engine), (type), (data), __FILE__, __LINE__)

/* Sends a request, expecting the call to succeed; returns the response (caller frees). */
static char *request_at(const RadiumEngine *engine, const char *json, const char *file, int line)
{
    RadiumError *err = NULL;
    char *out = NULL;
    check_ok_at(radium_request(engine, json, &out, &err), &err, file, line, "radium_request");
    check_at(out != NULL, file, line, "radium_request wrote a response");
    return out;
}
#define REQUEST(engine, json) request_at((engine), (json), __FILE__, __LINE__)

/* `first` occurs in `text`, and before `second`. */
static bool before(const char *text, const char *first, const char *second)
{
    const char *a = text != NULL ? strstr(text, first) : NULL;
    const char *b = text != NULL ? strstr(text, second) : NULL;
    return a != NULL && b != NULL && a < b;
}

static RadiumEngine *new_engine(void)
{
    RadiumEngine *engine = NULL;
    RadiumError *err = NULL;
    CHECK_OK(radium_engine_new(NULL, &engine, &err), err);
    CHECK(engine != NULL);
    if (engine == NULL) {
        fprintf(stderr, "cannot create an engine; giving up\n");
        exit(2);
    }
    return engine;
}

/* ----------------------------------------------------------------- version */

static void test_version(void)
{
    const char *version = radium_version();
    CHECK(version != NULL);
    CHECK(version != NULL && version[0] != '\0');
    CHECK(version != NULL && strcmp(version, "0.1.0") == 0);
    CHECK(radium_version() == version); /* static: the same string each time */
    CHECK(radium_abi_version() == RADIUM_ABI_VERSION);
    CHECK(RADIUM_STATUS_OK == 0);
}

/* ------------------------------------------------------------- engine_new */

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return false;
    }
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* A workspace whose hooks.toml is broken: the engine is created; a chain
 * with nothing to run completes, one with a hook to run fails with the
 * file's error (naming `where` and `what`) and runs none; the request door
 * answers the same error with code "config", and hooks-list warns. */
static void check_broken_workspace(const char *config, const char *where, const char *what)
{
    RadiumEngine *engine = NULL;
    RadiumError *err = NULL;
    CHECK_OK(radium_engine_new(config, &engine, &err), err);
    CHECK(engine != NULL);
    if (engine == NULL) {
        return;
    }
    char *out = REQUEST(engine, "{\"command\":\"ping\"}");
    CHECK_HAS(out, "\"data\":\"pong\"");
    radium_string_free(out);
    out = EXECUTE(engine, "before_model", "{}");
    CHECK_HAS(out, "\"status\":\"completed\"");
    radium_string_free(out);

    /* static: a hook left registered may be destroyed after this function returns */
    static atomic_int destroyed;
    atomic_init(&destroyed, 0);
    HookState *s = state_new("broken_cfg", MODE_CONTINUE, NULL, &destroyed);
    ADD_HOOK(engine, s, "before_model", 100, NULL, 0, err);
    out = SENTINEL_STRING;
    CHECK_FAIL2(radium_hooks_execute(engine, "before_model", "{}", &out, &err), err,
                RADIUM_STATUS_INVALID_ARGUMENT, where, what);
    CHECK(out == SENTINEL_STRING);
    CHECK(atomic_load(&s->calls) == 0);

    out = REQUEST(engine, "{\"command\":\"hooks-execute\",\"args\":{\"hook_type\":\"before_model\"}}");
    CHECK_HAS(out, "\"code\":\"config\"");
    CHECK_HAS(out, "\"ok\":false");
    CHECK_HAS(out, where);
    radium_string_free(out);
    CHECK(atomic_load(&s->calls) == 0);

    out = REQUEST(engine, "{\"command\":\"hooks-list\"}");
    CHECK_HAS(out, "\"name\":\"broken_cfg\"");
    CHECK_HAS(out, "\"warnings\":[");
    CHECK_HAS(out, where);
    radium_string_free(out);

    radium_engine_free(engine);
    CHECK(atomic_load(&destroyed) == 1);
}

static void test_engine_new(void)
{
    RadiumEngine *engine = NULL;
    RadiumError *err = NULL;

    CHECK_OK(radium_engine_new(NULL, &engine, &err), err);
    CHECK(engine != NULL);
    radium_engine_free(engine);

    engine = NULL;
    CHECK_OK(radium_engine_new("{}", &engine, &err), err);
    CHECK(engine != NULL);
    radium_engine_free(engine);

    engine = NULL;
    CHECK_OK(radium_engine_new("null", &engine, &err), err);
    CHECK(engine != NULL);
    radium_engine_free(engine);

    /* On success *error is left untouched. */
    engine = NULL;
    err = SENTINEL_ERROR;
    CHECK(radium_engine_new("{}", &engine, &err) == RADIUM_STATUS_OK);
    CHECK(err == SENTINEL_ERROR);
    err = NULL;
    radium_engine_free(engine);

    /* Failures leave *engine_out untouched. */
    engine = SENTINEL_ENGINE;
    CHECK_FAIL(radium_engine_new("{", &engine, &err), err, RADIUM_STATUS_INVALID_JSON,
               "config_json");
    CHECK(engine == SENTINEL_ENGINE);
    CHECK_FAIL(radium_engine_new("3", &engine, &err), err, RADIUM_STATUS_INVALID_ARGUMENT,
               "must be an object");
    CHECK_FAIL(radium_engine_new("[]", &engine, &err), err, RADIUM_STATUS_INVALID_ARGUMENT,
               "must be an object");
    CHECK_FAIL(radium_engine_new("{\"nope\":1}", &engine, &err), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "nope");
    CHECK_FAIL2(radium_engine_new("{\"workspace\":3}", &engine, &err), err,
                RADIUM_STATUS_INVALID_ARGUMENT, "engine configuration", "`workspace` must be a string");
    CHECK_FAIL(radium_engine_new("\"\xff\"", &engine, &err), err, RADIUM_STATUS_INVALID_UTF8,
               "config_json");
    CHECK(engine == SENTINEL_ENGINE);
    CHECK_FAIL(radium_engine_new(NULL, NULL, &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "engine_out");
    CHECK_FAIL(radium_engine_new("{}", NULL, &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "engine_out");

    /* Workspaces: .radium/hooks.toml. */
    char dir[] = "/tmp/radium-c-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char radium_dir[256];
    char toml[256];
    char config[512];
    snprintf(radium_dir, sizeof radium_dir, "%s/.radium", dir);
    snprintf(toml, sizeof toml, "%s/.radium/hooks.toml", dir);
    snprintf(config, sizeof config, "{\"workspace\":\"%s\",\"radium_home\":\"%s/home\"}", dir, dir);

    /* A workspace without .radium is fine. */
    engine = NULL;
    CHECK_OK(radium_engine_new(config, &engine, &err), err);
    CHECK(engine != NULL);
    radium_engine_free(engine);

    CHECK(mkdir(radium_dir, 0700) == 0);

    /* An untrusted workspace's file (a cloned repository's) is not applied:
     * a chain with a hook to run runs it, and hooks-list says why. */
    CHECK(write_file(toml, "[[hooks]]\nname = \"untrusted_off\"\ntype = \"before_model\"\nenabled = false\n"));
    engine = NULL;
    CHECK_OK(radium_engine_new(config, &engine, &err), err);
    if (engine != NULL) {
        static atomic_int gone;
        atomic_init(&gone, 0);
        HookState *s = state_new("untrusted_off", MODE_CONTINUE, NULL, &gone);
        ADD_HOOK(engine, s, "before_model", 100, NULL, 0, err);
        char *out = EXECUTE(engine, "before_model", "{}");
        CHECK_HAS(out, "\"status\":\"completed\"");
        radium_string_free(out);
        CHECK(atomic_load(&s->calls) == 1);
        out = REQUEST(engine, "{\"command\":\"hooks-list\"}");
        CHECK_HAS(out, "hooks.toml is not applied: the workspace ");
        CHECK_HAS(out, "is not trusted");
        radium_string_free(out);
        /* Trusting it applies the file at once. */
        out = REQUEST(engine, "{\"command\":\"trust\"}");
        CHECK_HAS(out, "\"trusted\":true");
        radium_string_free(out);
        out = EXECUTE(engine, "before_model", "{}");
        radium_string_free(out);
        CHECK(atomic_load(&s->calls) == 1);
        radium_engine_free(engine);
    }

    /* A broken file of the (now trusted) workspace does not stop the
     * engine: the chains with a hook to run fail with its error, which
     * names the file and line. Bad TOML: */
    CHECK(write_file(toml, "[[hooks]\n"));
    check_broken_workspace(config, "hooks.toml:1:", NULL);

    /* An unknown field on line 3. */
    CHECK(write_file(toml, "[[hooks]]\nname = \"x\"\npriorty = 3\ntype = \"before_tool\"\n"));
    check_broken_workspace(config, "hooks.toml:3:", "priorty");

    /* A file that is not UTF-8 cannot be read (no line: 0:0). */
    CHECK(write_file(toml, "\xff\xfe\n"));
    check_broken_workspace(config, "hooks.toml:0:0:", "UTF-8");

    /* A good file applies to hooks registered later, by name. */
    CHECK(write_file(toml, "[[hooks]]\n"
                           "name = \"cfg_hook\"\n"
                           "type = \"before_model\"\n"
                           "priority = 7\n"
                           "enabled = false\n"
                           "\n"
                           "[[hooks]]\n"
                           "name = \"cfg_typed\"\n"
                           "type = \"before_tool\"\n"));
    engine = NULL;
    CHECK_OK(radium_engine_new(config, &engine, &err), err);
    CHECK(engine != NULL);
    if (engine != NULL) {
        /* static: a hook left registered may be destroyed after this function returns */
        static atomic_int destroyed;
        atomic_init(&destroyed, 0);
        HookState *cfg = state_new("cfg_hook", MODE_CONTINUE, NULL, &destroyed);
        ADD_HOOK(engine, cfg, "before_model", 100, NULL, 0, err);
        char *list = REQUEST(engine, "{\"command\":\"hooks-list\"}");
        /* hooks-list data is a JSON value: keys sorted. */
        CHECK_HAS(list, "{\"enabled\":false,\"hook_type\":\"before_model\",\"matcher\":null,"
                        "\"name\":\"cfg_hook\",\"priority\":7,\"timeout_ms\":null}");
        radium_string_free(list);
        char *out = EXECUTE(engine, "before_model", "{}");
        CHECK(atomic_load(&cfg->calls) == 0);
        CHECK_LACKS(out, "cfg_hook");
        radium_string_free(out);
        CHECK_OK(radium_hook_set_enabled(engine, "cfg_hook", true, &err), err);
        out = EXECUTE(engine, "before_model", "{}");
        CHECK(atomic_load(&cfg->calls) == 1);
        CHECK_HAS(out, "\"name\":\"cfg_hook\",\"status\":\"continued\"");
        radium_string_free(out);

        /* The file says before_tool: registering it as after_model fails, and
         * the failed registration does not call destroy. */
        /* static: a hook left registered may be destroyed after this function returns */
        static atomic_int typed_destroyed;
        atomic_init(&typed_destroyed, 0);
        HookState *typed = state_new("cfg_typed", MODE_CONTINUE, NULL, &typed_destroyed);
        CHECK_FAIL2(add_hook(engine, typed, "after_model", 100, NULL, 0, &err), err,
                    RADIUM_STATUS_INVALID_ARGUMENT, "hooks.toml:7", "configured as before_tool");
        CHECK(atomic_load(&typed_destroyed) == 0);

        radium_engine_free(engine);
        CHECK(atomic_load(&destroyed) == 1);
        CHECK(atomic_load(&typed_destroyed) == 0);
    }

    CHECK(unlink(toml) == 0);
    CHECK(rmdir(radium_dir) == 0);
    char home_file[300];
    snprintf(home_file, sizeof home_file, "%s/home/trust.json", dir);
    CHECK(unlink(home_file) == 0);
    snprintf(home_file, sizeof home_file, "%s/home", dir);
    CHECK(rmdir(home_file) == 0);
    CHECK(rmdir(dir) == 0);
}

/* ------------------------------------------------------ registration misuse */

static void test_register_misuse(void)
{
    RadiumEngine *engine = new_engine();
    RadiumError *err = NULL;
    /* static: a hook left registered may be destroyed after this function returns */
    static atomic_int destroyed;
    atomic_init(&destroyed, 0);
    HookState *s = state_new("victim", MODE_CONTINUE, NULL, &destroyed);

#define REG(eng, name, type, matcher, cb) \
    radium_hook_register((eng), (name), (type), 100, (matcher), 0, (cb), s, hook_destroy, &err)

    CHECK_FAIL(REG(NULL, "victim", "before_model", NULL, hook_callback), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
    CHECK_FAIL(REG(engine, NULL, "before_model", NULL, hook_callback), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`name`");
    CHECK_FAIL(REG(engine, "victim", NULL, NULL, hook_callback), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`hook_type`");
    CHECK_FAIL(REG(engine, "victim", "before_model", NULL, NULL), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`callback`");
    CHECK_FAIL(REG(engine, "\xff\xfe", "before_model", NULL, hook_callback), err,
               RADIUM_STATUS_INVALID_UTF8, "`name`");
    CHECK_FAIL(REG(engine, "victim", "before\xff", NULL, hook_callback), err,
               RADIUM_STATUS_INVALID_UTF8, "`hook_type`");
    CHECK_FAIL2(REG(engine, "victim", "before_lunch", NULL, hook_callback), err,
                RADIUM_STATUS_UNKNOWN_HOOK_TYPE, "before_lunch", "before_model");
    CHECK_FAIL(REG(engine, "", "before_model", NULL, hook_callback), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "cannot be empty");
    CHECK_FAIL(REG(engine, "   ", "before_model", NULL, hook_callback), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "cannot be empty");
    CHECK_FAIL(REG(engine, "tab\there", "before_model", NULL, hook_callback), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "control characters");
    char long_name[130];
    memset(long_name, 'x', 129);
    long_name[129] = '\0';
    CHECK_FAIL(REG(engine, long_name, "before_model", NULL, hook_callback), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "at most 128 bytes");
    CHECK_FAIL(REG(engine, "victim", "before_model", "view", hook_callback), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "matchers apply only");
    CHECK_FAIL(REG(engine, "victim", "before_tool", "a||b", hook_callback), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "a||b");
    CHECK_FAIL(REG(engine, "victim", "before_tool", "", hook_callback), err,
               RADIUM_STATUS_INVALID_ARGUMENT, "empty");
    CHECK_FAIL(REG(engine, "victim", "before_tool", "\xff", hook_callback), err,
               RADIUM_STATUS_INVALID_UTF8, "`matcher`");
    /* A NULL error out-parameter: just the status. */
    CHECK(radium_hook_register(engine, NULL, "before_model", 100, NULL, 0, hook_callback, s,
                               hook_destroy, NULL) == RADIUM_STATUS_NULL_ARGUMENT);
    CHECK(radium_hook_register(engine, "victim", "before_lunch", 100, NULL, 0, hook_callback, s,
                               hook_destroy, NULL) == RADIUM_STATUS_UNKNOWN_HOOK_TYPE);
    CHECK(atomic_load(&destroyed) == 0); /* no failed registration called destroy */

    /* The name was never taken by the failures. */
    CHECK_OK(REG(engine, "victim", "before_model", NULL, hook_callback), err);
#undef REG

    /* A duplicate name fails; its state stays the caller's. */
    /* static: a hook left registered may be destroyed after this function returns */
    static atomic_int dup_destroyed;
    atomic_init(&dup_destroyed, 0);
    HookState *dup = state_new("victim", MODE_CONTINUE, NULL, &dup_destroyed);
    CHECK_FAIL(add_hook(engine, dup, "after_model", 100, NULL, 0, &err), err,
               RADIUM_STATUS_DUPLICATE_HOOK, "victim");
    dup = state_new("victim", MODE_CONTINUE, NULL, &dup_destroyed);
    CHECK(add_hook(engine, dup, "before_model", 100, NULL, 0, NULL) ==
          RADIUM_STATUS_DUPLICATE_HOOK);
    CHECK(atomic_load(&dup_destroyed) == 0);
    CHECK(atomic_load(&destroyed) == 0);

    /* Unregister: destroy runs exactly once, at once (no chain running). */
    CHECK_OK(radium_hook_unregister(engine, "victim", &err), err);
    CHECK(atomic_load(&destroyed) == 1);
    CHECK_FAIL(radium_hook_unregister(engine, "victim", &err), err, RADIUM_STATUS_UNKNOWN_HOOK,
               "victim");
    radium_engine_free(engine);
    CHECK(atomic_load(&destroyed) == 1);
    CHECK(atomic_load(&dup_destroyed) == 0);
}

/* ------------------------------------------------------- chain behaviours */

static void test_priority(RadiumEngine *engine)
{
    RadiumError *err = NULL;
    /* static: a hook left registered may be destroyed after this function returns */
    static atomic_int destroyed;
    atomic_init(&destroyed, 0);
    /* Registered out of order; expected run order: p_high, p_mid1, p_mid2, p_low. */
    HookState *mid1 = state_new("p_mid1", MODE_TAG, "\"last\":\"p_high\"", &destroyed);
    HookState *low = state_new("p_low", MODE_TAG, "\"last\":\"p_mid2\"", &destroyed);
    HookState *high = state_new("p_high", MODE_TAG, "\"last\":\"input\"", &destroyed);
    HookState *mid2 = state_new("p_mid2", MODE_TAG, "\"last\":\"p_mid1\"", &destroyed);
    ADD_HOOK(engine, mid1, "before_model", 100, NULL, 0, err);
    ADD_HOOK(engine, low, "before_model", 50, NULL, 0, err);
    ADD_HOOK(engine, high, "before_model", 200, NULL, 0, err);
    ADD_HOOK(engine, mid2, "before_model", 100, NULL, 0, err);

    for (int round = 0; round < 2; round++) {
        g_order[0] = '\0';
        char *out = EXECUTE(engine, "before_model", "{\"last\":\"input\"}");
        CHECK(strcmp(g_order, "p_high,p_mid1,p_mid2,p_low,") == 0);
        CHECK_HAS(out, "\"hook_type\":\"before_model\"");
        CHECK_HAS(out, "\"status\":\"completed\"");
        CHECK_HAS(out, "\"data\":{\"last\":\"p_low\"}");
        CHECK_HAS(out, "\"stopped_by\":null");
        CHECK_HAS(out, "\"name\":\"p_high\",\"status\":\"modified\"");
        CHECK_HAS(out, "\"duration_ns\":");
        CHECK(before(out, "\"name\":\"p_high\"", "\"name\":\"p_mid1\""));
        CHECK(before(out, "\"name\":\"p_mid1\"", "\"name\":\"p_mid2\""));
        CHECK(before(out, "\"name\":\"p_mid2\"", "\"name\":\"p_low\""));
        radium_string_free(out);
    }
    CHECK(atomic_load(&high->calls) == 2 && atomic_load(&mid1->calls) == 2 &&
          atomic_load(&mid2->calls) == 2 && atomic_load(&low->calls) == 2);
    CHECK(atomic_load(&high->misses) == 0 && atomic_load(&mid1->misses) == 0 &&
          atomic_load(&mid2->misses) == 0 && atomic_load(&low->misses) == 0);

    /* hooks-list reports them in execution order. */
    char *list = REQUEST(engine, "{\"command\":\"hooks-list\"}");
    CHECK(before(list, "\"name\":\"p_high\"", "\"name\":\"p_mid1\""));
    CHECK(before(list, "\"name\":\"p_mid2\"", "\"name\":\"p_low\""));
    CHECK_HAS(list, "\"name\":\"p_low\",\"priority\":50,");
    radium_string_free(list);
    CHECK(atomic_load(&destroyed) == 0);
}

static void test_stop(RadiumEngine *engine)
{
    RadiumError *err = NULL;
    HookState *first = state_new("s_first", MODE_CONTINUE, "\"tool_name\":\"x\"", NULL);
    HookState *stop = state_new("s_stop", MODE_STOP, NULL, NULL);
    HookState *never = state_new("s_never", MODE_CONTINUE, NULL, NULL);
    ADD_HOOK(engine, first, "after_model", 200, NULL, 0, err);
    ADD_HOOK(engine, stop, "after_model", 150, NULL, 0, err);
    ADD_HOOK(engine, never, "after_model", 100, NULL, 0, err);

    char *out = EXECUTE(engine, "after_model", "{\"tool_name\":\"x\"}");
    CHECK_HAS(out, "\"status\":\"stopped\"");
    CHECK_LACKS(out, "\"status\":\"completed\"");
    CHECK_HAS(out, "\"stopped_by\":{\"hook\":\"s_stop\",\"reason\":\"frozen\"}");
    CHECK_HAS(out, "\"reason\":\"frozen\"");
    CHECK_HAS(out, "\"name\":\"s_first\",\"status\":\"continued\"");
    CHECK_HAS(out, "\"name\":\"s_stop\",\"status\":\"stopped\"");
    CHECK_LACKS(out, "s_never");
    CHECK_HAS(out, "\"data\":{\"tool_name\":\"x\"}");
    radium_string_free(out);
    CHECK(atomic_load(&first->calls) == 1 && atomic_load(&first->misses) == 0);
    CHECK(atomic_load(&stop->calls) == 1);
    CHECK(atomic_load(&never->calls) == 0);
}

static void test_failures(RadiumEngine *engine)
{
    RadiumError *err = NULL;
    HookState *msg = state_new("e_msg", MODE_FAIL_MESSAGE, NULL, NULL);
    HookState *bare = state_new("e_bare", MODE_FAIL_BARE, NULL, NULL);
    HookState *bad = state_new("e_bad", MODE_BAD_RESULT, NULL, NULL);
    HookState *soft = state_new("e_soft", MODE_SOFT_ERROR, NULL, NULL);
    /* The failures did not change the data: the last hook still sees it. */
    HookState *after = state_new("e_after", MODE_TAG, "\"error_message\":\"boom\"", NULL);
    ADD_HOOK(engine, msg, "error_logging", 500, NULL, 0, err);
    ADD_HOOK(engine, bare, "error_logging", 400, NULL, 0, err);
    ADD_HOOK(engine, bad, "error_logging", 300, NULL, 0, err);
    ADD_HOOK(engine, soft, "error_logging", 200, NULL, 0, err);
    ADD_HOOK(engine, after, "error_logging", 100, NULL, 0, err);

    char *out = EXECUTE(engine, "error_logging", "{\"error_message\":\"boom\"}");
    CHECK_HAS(out, "\"status\":\"completed\"");
    CHECK_HAS(out, "\"name\":\"e_msg\",\"status\":\"error\"");
    CHECK_HAS(out, "\"error\":\"disk on fire\"");
    CHECK_HAS(out, "\"name\":\"e_bare\",\"status\":\"error\"");
    CHECK_HAS(out, "returned status 3");
    CHECK_HAS(out, "C hook `e_bare` returned status 3");
    CHECK_HAS(out, "\"name\":\"e_bad\",\"status\":\"continued\"");
    CHECK_LACKS(out, "ignored message");
    CHECK_LACKS(out, "explode");
    CHECK_HAS(out, "\"name\":\"e_soft\",\"status\":\"error\"");
    CHECK_HAS(out, "\"error\":\"soft failure\"");
    CHECK_HAS(out, "\"name\":\"e_after\",\"status\":\"modified\"");
    CHECK_HAS(out, "\"data\":{\"last\":\"e_after\"}");
    CHECK(before(out, "\"name\":\"e_msg\"", "\"name\":\"e_after\""));
    radium_string_free(out);
    CHECK(atomic_load(&msg->calls) == 1 && atomic_load(&msg->misses) == 0);
    CHECK(atomic_load(&bare->calls) == 1);
    CHECK(atomic_load(&bad->calls) == 1);
    CHECK(atomic_load(&soft->calls) == 1);
    CHECK(atomic_load(&after->calls) == 1 && atomic_load(&after->misses) == 0);
}

static void test_matcher_enable_unregister(RadiumEngine *engine)
{
    RadiumError *err = NULL;
    /* static: a hook left registered may be destroyed after this function returns */
    static atomic_int read_destroyed;
    atomic_init(&read_destroyed, 0);
    HookState *reader = state_new("m_read", MODE_CONTINUE, NULL, &read_destroyed);
    HookState *all = state_new("m_all", MODE_CONTINUE, NULL, NULL);
    ADD_HOOK(engine, reader, "before_tool", 150, "read_*|view", 0, err);
    ADD_HOOK(engine, all, "before_tool", 100, NULL, 0, err);

    char *out = EXECUTE(engine, "before_tool", "{\"tool_name\":\"view\"}");
    CHECK(atomic_load(&reader->calls) == 1);
    CHECK_HAS(out, "\"name\":\"m_read\",\"status\":\"continued\"");
    CHECK_HAS(out, "\"name\":\"m_all\"");
    radium_string_free(out);

    out = EXECUTE(engine, "before_tool", "{\"tool_name\":\"edit\"}");
    CHECK(atomic_load(&reader->calls) == 1);
    CHECK_LACKS(out, "m_read"); /* skipped hooks are not listed */
    CHECK_HAS(out, "\"name\":\"m_all\"");
    radium_string_free(out);

    out = EXECUTE(engine, "before_tool", "{\"tool_name\":\"read_file\"}");
    CHECK(atomic_load(&reader->calls) == 2);
    radium_string_free(out);
    out = EXECUTE(engine, "before_tool", "{\"tool_name\":\"View\"}"); /* case-sensitive */
    radium_string_free(out);
    out = EXECUTE(engine, "before_tool", "{\"tool\":\"view\"}"); /* no tool_name */
    radium_string_free(out);
    out = EXECUTE(engine, "before_tool", "\"view\"");
    radium_string_free(out);
    CHECK(atomic_load(&reader->calls) == 2);
    CHECK(atomic_load(&all->calls) == 6);

    /* Enable / disable. */
    CHECK_OK(radium_hook_set_enabled(engine, "m_all", false, &err), err);
    out = EXECUTE(engine, "before_tool", "{\"tool_name\":\"view\"}");
    CHECK(atomic_load(&all->calls) == 6);
    CHECK_LACKS(out, "m_all");
    CHECK_HAS(out, "\"name\":\"m_read\"");
    radium_string_free(out);
    CHECK_OK(radium_hook_set_enabled(engine, "m_all", false, &err), err); /* idempotent */
    CHECK_OK(radium_hook_set_enabled(engine, "m_all", true, &err), err);
    out = EXECUTE(engine, "before_tool", "{\"tool_name\":\"view\"}");
    CHECK(atomic_load(&all->calls) == 7);
    CHECK_HAS(out, "\"name\":\"m_all\"");
    radium_string_free(out);
    CHECK_FAIL(radium_hook_set_enabled(engine, "ghost", true, &err), err,
               RADIUM_STATUS_UNKNOWN_HOOK, "ghost");
    CHECK_FAIL(radium_hook_set_enabled(NULL, "m_all", true, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
    CHECK_FAIL(radium_hook_set_enabled(engine, NULL, true, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`name`");
    CHECK_FAIL(radium_hook_set_enabled(engine, "\xff", true, &err), err,
               RADIUM_STATUS_INVALID_UTF8, "`name`");

    /* Unregister. */
    CHECK_OK(radium_hook_unregister(engine, "m_read", &err), err);
    CHECK(atomic_load(&read_destroyed) == 1);
    out = EXECUTE(engine, "before_tool", "{\"tool_name\":\"view\"}");
    CHECK_LACKS(out, "m_read");
    radium_string_free(out);
    CHECK_FAIL(radium_hook_unregister(engine, "m_read", &err), err, RADIUM_STATUS_UNKNOWN_HOOK,
               "m_read");
    CHECK_FAIL(radium_hook_unregister(engine, "ghost", &err), err, RADIUM_STATUS_UNKNOWN_HOOK,
               "no hook named `ghost`");
    CHECK_FAIL(radium_hook_unregister(NULL, "m_all", &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "`engine`");
    CHECK_FAIL(radium_hook_unregister(engine, NULL, &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "`name`");
    CHECK_FAIL(radium_hook_unregister(engine, "\xff\xfe", &err), err,
               RADIUM_STATUS_INVALID_UTF8, "`name`");
    CHECK(atomic_load(&read_destroyed) == 1);

    /* The name is free again. */
    reader = state_new("m_read", MODE_CONTINUE, NULL, &read_destroyed);
    ADD_HOOK(engine, reader, "before_tool", 150, "view", 0, err);
    out = EXECUTE(engine, "before_tool", "{\"tool_name\":\"view\"}");
    CHECK(atomic_load(&reader->calls) == 1);
    radium_string_free(out);
}

static void test_self_remove_and_timeout(RadiumEngine *engine)
{
    RadiumError *err = NULL;
    /* static: a hook left registered may be destroyed after this function returns */
    static atomic_int destroyed;
    atomic_init(&destroyed, 0);
    HookState *self = state_new("self_rm", MODE_SELF_REMOVE, NULL, &destroyed);
    self->engine = engine;
    HookState *next = state_new("after_rm", MODE_CONTINUE, NULL, NULL);
    ADD_HOOK(engine, self, "custom_logging", 200, NULL, 0, err);
    ADD_HOOK(engine, next, "custom_logging", 100, NULL, 0, err);

    char *out = EXECUTE(engine, "custom_logging", "{}");
    CHECK(atomic_load(&destroyed) == 1); /* the chain is over: destroyed now */
    CHECK_HAS(out, "\"name\":\"self_rm\",\"status\":\"continued\"");
    CHECK_HAS(out, "\"name\":\"after_rm\"");
    radium_string_free(out);
    out = EXECUTE(engine, "custom_logging", "{}");
    CHECK_LACKS(out, "self_rm");
    radium_string_free(out);
    CHECK(atomic_load(&next->calls) == 2);
    CHECK(atomic_load(&destroyed) == 1);

    /* A hook that returns after its time limit: timed out, answer discarded. */
    HookState *slow = state_new("slow", MODE_SLOW, NULL, NULL);
    ADD_HOOK(engine, slow, "performance_monitoring", 100, NULL, 5, err);
    out = EXECUTE(engine, "performance_monitoring", "{\"n\":1}");
    CHECK(atomic_load(&slow->calls) == 1);
    CHECK_HAS(out, "\"name\":\"slow\",\"status\":\"timed_out\"");
    CHECK_HAS(out, "answer was discarded");
    CHECK_HAS(out, "\"data\":{\"n\":1}");
    CHECK_LACKS(out, "\"slow\":true");
    CHECK_HAS(out, "\"status\":\"completed\"");
    radium_string_free(out);
    char *list = REQUEST(engine, "{\"command\":\"hooks-list\"}");
    CHECK_HAS(list, "{\"enabled\":true,\"hook_type\":\"performance_monitoring\",\"matcher\":null,"
                    "\"name\":\"slow\",\"priority\":100,\"timeout_ms\":5}");
    radium_string_free(list);
}

/* --------------------------------------------------------- execute misuse */

static void test_execute_misuse(RadiumEngine *engine)
{
    RadiumError *err = NULL;
    char *out = SENTINEL_STRING;

    CHECK_FAIL(radium_hooks_execute(NULL, "before_tool", "{}", &out, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
    CHECK_FAIL(radium_hooks_execute(engine, "before_tool", "{}", NULL, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "outcome_json_out");
    CHECK_FAIL(radium_hooks_execute(engine, NULL, "{}", &out, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`hook_type`");
    CHECK_FAIL(radium_hooks_execute(engine, "before_tool", NULL, &out, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "data_json");
    CHECK_FAIL2(radium_hooks_execute(engine, "before_lunch", "{}", &out, &err), err,
                RADIUM_STATUS_UNKNOWN_HOOK_TYPE, "before_lunch", "before_model");
    CHECK_FAIL(radium_hooks_execute(engine, "before\xff", "{}", &out, &err), err,
               RADIUM_STATUS_INVALID_UTF8, "hook_type");
    CHECK_FAIL(radium_hooks_execute(engine, "before_tool", "{", &out, &err), err,
               RADIUM_STATUS_INVALID_JSON, "data_json");
    CHECK_FAIL(radium_hooks_execute(engine, "before_tool", "{\"a\":1} trailing", &out, &err), err,
               RADIUM_STATUS_INVALID_JSON, "data_json");
    CHECK_FAIL(radium_hooks_execute(engine, "before_tool", "\"\xff\xfe\"", &out, &err), err,
               RADIUM_STATUS_INVALID_UTF8, "data_json");
    CHECK_FAIL(radium_hooks_execute(SENTINEL_ENGINE, "before_tool", "{}", &out, &err), err,
               RADIUM_STATUS_INVALID_HANDLE, "not live");
    CHECK(radium_hooks_execute(engine, "before_tool", "{", &out, NULL) ==
          RADIUM_STATUS_INVALID_JSON);
    CHECK(out == SENTINEL_STRING); /* never written on failure */

    /* A type with no hooks: the data comes back unchanged; any JSON works. */
    err = SENTINEL_ERROR;
    out = NULL;
    CHECK(radium_hooks_execute(engine, "metrics_aggregation", "[1,2]", &out, &err) ==
          RADIUM_STATUS_OK);
    CHECK(err == SENTINEL_ERROR); /* untouched on success */
    err = NULL;
    CHECK_HAS(out, "\"hook_type\":\"metrics_aggregation\"");
    CHECK_HAS(out, "\"status\":\"completed\"");
    CHECK_HAS(out, "\"data\":[1,2]");
    CHECK_HAS(out, "\"hooks\":[]");
    radium_string_free(out);
    out = EXECUTE(engine, "metrics_aggregation", "null");
    CHECK_HAS(out, "\"data\":null");
    radium_string_free(out);
}

static void test_reply_misuse_outside(void)
{
    RadiumError *err = NULL;
    CHECK_FAIL(radium_hook_reply_set_result(NULL, "{}", &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "`reply`");
    CHECK_FAIL(radium_hook_reply_set_result(NULL, NULL, &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "`reply`");
    CHECK_FAIL(radium_hook_reply_set_error(NULL, "oops", &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "`reply`");
    CHECK_FAIL(radium_hook_reply_set_error(NULL, NULL, &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "`reply`");
    CHECK(radium_hook_reply_set_result(NULL, "{}", NULL) == RADIUM_STATUS_NULL_ARGUMENT);
    CHECK(radium_hook_reply_set_error(NULL, "oops", NULL) == RADIUM_STATUS_NULL_ARGUMENT);
}

/* ---------------------------------------------------------------- request */

static void test_request(RadiumEngine *engine)
{
    RadiumError *err = NULL;
    HookState *r = state_new("r_hook", MODE_CONTINUE, "\"metadata\":{\"who\":\"c\"}", NULL);
    ADD_HOOK(engine, r, "after_tool", 120, "grep", 5000, err);

    char *out = REQUEST(engine, "{\"command\":\"ping\"}");
    CHECK_HAS(out, "\"ok\":true");
    CHECK_HAS(out, "pong");
    CHECK_HAS(out, "\"data\":\"pong\"");
    radium_string_free(out);

    out = REQUEST(engine, "{\"command\":\"ping\",\"args\":null,\"tag\":\"t1\",\"cwd\":\"/tmp\"}");
    CHECK_HAS(out, "\"ok\":true");
    radium_string_free(out);

    out = REQUEST(engine, "{\"command\":\"version\"}");
    CHECK_HAS(out, "\"ok\":true");
    CHECK_HAS(out, "\"abi_version\":1");
    CHECK_HAS(out, "\"version\":\"0.1.0\"");
    radium_string_free(out);

    out = REQUEST(engine, "{\"command\":\"hooks-list\"}");
    CHECK_HAS(out, "\"ok\":true");
    CHECK_HAS(out, "{\"enabled\":true,\"hook_type\":\"after_tool\",\"matcher\":\"grep\","
                   "\"name\":\"r_hook\",\"priority\":120,\"timeout_ms\":5000}");
    radium_string_free(out);

    static const char *const exec_grep =
        "{\"command\":\"hooks-execute\",\"args\":{\"hook_type\":\"after_tool\","
        "\"data\":{\"tool_name\":\"grep\"},\"metadata\":{\"who\":\"c\"}}}";
    out = REQUEST(engine, exec_grep);
    CHECK_HAS(out, "\"ok\":true");
    CHECK_HAS(out, "\"status\":\"completed\"");
    CHECK_HAS(out, "\"name\":\"r_hook\",\"status\":\"continued\"");
    CHECK_HAS(out, "\"tool_name\":\"grep\"");
    radium_string_free(out);
    CHECK(atomic_load(&r->calls) == 1);
    CHECK(atomic_load(&r->misses) == 0); /* the hook saw the metadata */

    out = REQUEST(engine, "{\"command\":\"hooks-disable\",\"args\":{\"name\":\"r_hook\"}}");
    CHECK_HAS(out, "\"ok\":true");
    CHECK_HAS(out, "\"enabled\":false");
    CHECK_HAS(out, "\"name\":\"r_hook\"");
    radium_string_free(out);
    out = REQUEST(engine, "{\"command\":\"hooks-list\"}");
    CHECK_HAS(out, "{\"enabled\":false,\"hook_type\":\"after_tool\",\"matcher\":\"grep\","
                   "\"name\":\"r_hook\"");
    radium_string_free(out);
    out = REQUEST(engine, exec_grep);
    CHECK_LACKS(out, "r_hook");
    radium_string_free(out);
    CHECK(atomic_load(&r->calls) == 1);

    out = REQUEST(engine, "{\"command\":\"hooks-enable\",\"args\":{\"name\":\"r_hook\"}}");
    CHECK_HAS(out, "\"ok\":true");
    CHECK_HAS(out, "\"enabled\":true");
    radium_string_free(out);
    out = REQUEST(engine, exec_grep);
    CHECK_HAS(out, "\"name\":\"r_hook\"");
    radium_string_free(out);
    CHECK(atomic_load(&r->calls) == 2);

    /* Commands that fail are successful calls answering ok:false. */
    out = REQUEST(engine, "{\"command\":\"hooks-disable\",\"args\":{\"name\":\"ghost\"}}");
    CHECK_HAS(out, "\"ok\":false");
    CHECK_HAS(out, "\"code\":\"unknown_hook\"");
    CHECK_HAS(out, "ghost");
    radium_string_free(out);
    out = REQUEST(engine, "{\"command\":\"hooks-enable\"}");
    CHECK_HAS(out, "\"ok\":false");
    CHECK_HAS(out, "\"code\":\"invalid_argument\"");
    CHECK_HAS(out, "missing argument `name`");
    radium_string_free(out);
    out = REQUEST(engine, "{\"command\":\"hooks-execute\",\"args\":{\"hook_type\":\"before_lunch\"}}");
    CHECK_HAS(out, "\"ok\":false");
    CHECK_HAS(out, "\"code\":\"unknown_hook_type\"");
    radium_string_free(out);
    out = REQUEST(engine, "{\"command\":\"frobnicate\"}");
    CHECK_HAS(out, "\"ok\":false");
    CHECK_HAS(out, "unknown_command");
    CHECK_HAS(out, "frobnicate");
    radium_string_free(out);
    out = REQUEST(engine, "[1]");
    CHECK_HAS(out, "\"ok\":false");
    CHECK_HAS(out, "invalid_request");
    radium_string_free(out);
    out = REQUEST(engine, "{\"command\":\"ping\",\"bogus\":1}");
    CHECK_HAS(out, "\"ok\":false");
    CHECK_HAS(out, "invalid_request");
    radium_string_free(out);
    out = REQUEST(engine, "{\"command\":\"ping\",\"args\":[1]}");
    CHECK_HAS(out, "\"ok\":false");
    CHECK_HAS(out, "\"code\":\"invalid_argument\"");
    radium_string_free(out);

    /* Misuse: the call itself fails. */
    out = SENTINEL_STRING;
    CHECK_FAIL(radium_request(engine, "{", &out, &err), err, RADIUM_STATUS_INVALID_JSON,
               "request_json");
    CHECK_FAIL(radium_request(engine, NULL, &out, &err), err, RADIUM_STATUS_NULL_ARGUMENT,
               "request_json");
    CHECK_FAIL(radium_request(engine, "{\"command\":\"ping\"}", NULL, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "response_json_out");
    CHECK_FAIL(radium_request(NULL, "{\"command\":\"ping\"}", &out, &err), err,
               RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
    CHECK_FAIL(radium_request(engine, "{\"command\":\"\xff\"}", &out, &err), err,
               RADIUM_STATUS_INVALID_UTF8, "request_json");
    CHECK_FAIL(radium_request(SENTINEL_ENGINE, "{\"command\":\"ping\"}", &out, &err), err,
               RADIUM_STATUS_INVALID_HANDLE, "not live");
    CHECK(radium_request(engine, "{", &out, NULL) == RADIUM_STATUS_INVALID_JSON);
    CHECK(out == SENTINEL_STRING);

    err = SENTINEL_ERROR;
    out = NULL;
    CHECK(radium_request(engine, "{\"command\":\"ping\"}", &out, &err) == RADIUM_STATUS_OK);
    CHECK(err == SENTINEL_ERROR);
    err = NULL;
    radium_string_free(out);
}

/* ----------------------------------------------- lifecycle and free functions */

static void test_lifecycle(void)
{
    RadiumError *err = NULL;
    atomic_int d1, d2;
    atomic_init(&d1, 0);
    atomic_init(&d2, 0);
    RadiumEngine *engine = new_engine();
    ADD_HOOK(engine, state_new("h1", MODE_CONTINUE, NULL, &d1), "before_model", 100, NULL, 0,
             err);
    ADD_HOOK(engine, state_new("h2", MODE_CONTINUE, NULL, &d2), "after_tool", 100, "*", 0,
             err);
    /* A hook without a destroy function: its state stays ours. */
    static HookState plain;
    snprintf(plain.name, sizeof plain.name, "h3");
    plain.mode = MODE_CONTINUE;
    atomic_init(&plain.calls, 0);
    atomic_init(&plain.misses, 0);
    CHECK_OK(radium_hook_register(engine, "h3", "before_model", 100, NULL, 0, hook_callback,
                                  &plain, NULL, &err),
             err);
    char *out = EXECUTE(engine, "before_model", "{}");
    CHECK(atomic_load(&plain.calls) == 1);
    radium_string_free(out);

    /* Freeing the engine destroys every hook exactly once. */
    radium_engine_free(engine);
    CHECK(atomic_load(&d1) == 1);
    CHECK(atomic_load(&d2) == 1);

    /* Use after destroy: detected (no engine was created since). */
    out = SENTINEL_STRING;
    CHECK_FAIL(radium_request(engine, "{\"command\":\"ping\"}", &out, &err), err,
               RADIUM_STATUS_INVALID_HANDLE, "not live");
    CHECK_FAIL(radium_hooks_execute(engine, "before_model", "{}", &out, &err), err,
               RADIUM_STATUS_INVALID_HANDLE, "not live");
    CHECK(out == SENTINEL_STRING);
    atomic_int d3;
    atomic_init(&d3, 0);
    CHECK_FAIL(add_hook(engine, state_new("h4", MODE_CONTINUE, NULL, &d3), "before_model", 100,
                        NULL, 0, &err),
               err, RADIUM_STATUS_INVALID_HANDLE, "not live");
    CHECK(atomic_load(&d3) == 0);
    CHECK_FAIL(radium_hook_unregister(engine, "h1", &err), err, RADIUM_STATUS_INVALID_HANDLE,
               "not live");
    CHECK_FAIL(radium_hook_set_enabled(engine, "h1", false, &err), err,
               RADIUM_STATUS_INVALID_HANDLE, "not live");
    CHECK(radium_request(engine, "{\"command\":\"ping\"}", &out, NULL) ==
          RADIUM_STATUS_INVALID_HANDLE);
    radium_engine_free(engine); /* a second free is harmless */
    CHECK(atomic_load(&d1) == 1);
    CHECK(atomic_load(&d2) == 1);
    radium_engine_free(SENTINEL_ENGINE); /* never created: ignored */

    /* Handles are never reused: after many engines have come and gone, the
     * destroyed handle is still detected, and freeing it again does not
     * touch a live engine. */
    RadiumEngine *live = NULL;
    for (int i = 0; i < 64; i++) {
        RadiumEngine *tmp = new_engine();
        CHECK(tmp != engine);
        if (i == 63) {
            live = tmp;
        } else {
            radium_engine_free(tmp);
        }
    }
    CHECK(radium_request(engine, "{\"command\":\"ping\"}", &out, NULL) ==
          RADIUM_STATUS_INVALID_HANDLE);
    radium_engine_free(engine);
    CHECK_OK(radium_request(live, "{\"command\":\"ping\"}", &out, &err), err);
    radium_string_free(out);
    radium_engine_free(live);

    /* Free functions accept NULL. */
    radium_engine_free(NULL);
    radium_string_free(NULL);
    radium_error_free(NULL);
    CHECK(radium_error_status(NULL) == RADIUM_STATUS_NULL_ARGUMENT);
    CHECK(radium_error_message(NULL) != NULL);
    CHECK(strcmp(radium_error_message(NULL), "") == 0);

    /* An error's message lives until the error is freed. */
    CHECK(radium_engine_new("{", &engine, &err) == RADIUM_STATUS_INVALID_JSON);
    const char *m1 = radium_error_message(err);
    CHECK(m1 != NULL && m1 == radium_error_message(err));
    CHECK(radium_error_status(err) == RADIUM_STATUS_INVALID_JSON);
    radium_error_free(err);
    err = NULL;
}

/* A NULL `error` out-parameter: failing calls only return the status (and
 * valgrind shows that nothing leaks). */
static void test_null_error_out(RadiumEngine *engine)
{
    RadiumEngine *e2 = SENTINEL_ENGINE;
    char *out = SENTINEL_STRING;
    CHECK(radium_engine_new("{", &e2, NULL) == RADIUM_STATUS_INVALID_JSON);
    CHECK(radium_engine_new("3", &e2, NULL) == RADIUM_STATUS_INVALID_ARGUMENT);
    CHECK(radium_engine_new(NULL, NULL, NULL) == RADIUM_STATUS_NULL_ARGUMENT);
    CHECK(e2 == SENTINEL_ENGINE);
    CHECK(radium_hook_register(engine, "n", "before_lunch", 100, NULL, 0, hook_callback, NULL,
                               NULL, NULL) == RADIUM_STATUS_UNKNOWN_HOOK_TYPE);
    CHECK(radium_hook_unregister(engine, "ghost", NULL) == RADIUM_STATUS_UNKNOWN_HOOK);
    CHECK(radium_hook_set_enabled(engine, "ghost", true, NULL) == RADIUM_STATUS_UNKNOWN_HOOK);
    CHECK(radium_hooks_execute(engine, "nope", "{}", &out, NULL) ==
          RADIUM_STATUS_UNKNOWN_HOOK_TYPE);
    CHECK(radium_hooks_execute(NULL, "before_tool", "{}", &out, NULL) ==
          RADIUM_STATUS_NULL_ARGUMENT);
    CHECK(radium_request(engine, "{", &out, NULL) == RADIUM_STATUS_INVALID_JSON);
    CHECK(radium_request(engine, NULL, &out, NULL) == RADIUM_STATUS_NULL_ARGUMENT);
    CHECK(out == SENTINEL_STRING);
    CHECK(radium_hook_reply_set_result(NULL, "{}", NULL) == RADIUM_STATUS_NULL_ARGUMENT);
    CHECK(radium_hook_reply_set_error(NULL, "x", NULL) == RADIUM_STATUS_NULL_ARGUMENT);
}

/* ---------------------------------------------------------------- threads */

enum { THREADS = 4, RUNS_PER_THREAD = 200 };

typedef struct ThreadShared {
    const RadiumEngine *engine;
    atomic_int good;
    atomic_int bad;
    atomic_int finished;
} ThreadShared;

static void *worker(void *arg)
{
    ThreadShared *shared = arg;
    for (int i = 0; i < RUNS_PER_THREAD; i++) {
        char *out = NULL;
        RadiumError *err = NULL;
        RadiumStatus status = radium_hooks_execute(shared->engine, "after_tool",
                                                   "{\"tool_name\":\"x\"}", &out, &err);
        if (status == RADIUM_STATUS_OK && strstr(out, "\"status\":\"completed\"") != NULL &&
            strstr(out, "\"data\":{\"seen\":\"t_a\"}") != NULL) {
            atomic_fetch_add(&shared->good, 1);
        } else {
            atomic_fetch_add(&shared->bad, 1);
        }
        radium_string_free(out);
        radium_error_free(err);
    }
    atomic_fetch_add(&shared->finished, 1);
    return NULL;
}

static void test_threads(void)
{
    RadiumEngine *engine = new_engine();
    RadiumError *err = NULL;
    atomic_int destroyed, churn_destroyed;
    atomic_init(&destroyed, 0);
    atomic_init(&churn_destroyed, 0);
    HookState *a = state_new("t_a", MODE_THREAD_TAG, NULL, &destroyed);
    HookState *b = state_new("t_b", MODE_CONTINUE, "\"seen\":\"t_a\"", &destroyed);
    HookState *c = state_new("t_c", MODE_CONTINUE, NULL, &destroyed);
    ADD_HOOK(engine, a, "after_tool", 200, NULL, 0, err);
    ADD_HOOK(engine, b, "after_tool", 100, NULL, 0, err);
    ADD_HOOK(engine, c, "after_tool", 50, "x|y", 0, err);

    ThreadShared shared;
    shared.engine = engine;
    atomic_init(&shared.good, 0);
    atomic_init(&shared.bad, 0);
    atomic_init(&shared.finished, 0);

    pthread_t threads[THREADS];
    int started = 0;
    for (int i = 0; i < THREADS; i++) {
        if (pthread_create(&threads[i], NULL, worker, &shared) == 0) {
            started++;
        }
    }
    CHECK(started == THREADS);

    /* Meanwhile: register/unregister another hook, toggle a third. */
    int iterations = 0;
    int churn_failures = 0;
    while (atomic_load(&shared.finished) < started || iterations < 20) {
        HookState *churn = state_new("churn", MODE_CONTINUE, NULL, &churn_destroyed);
        if (add_hook(engine, churn, "after_tool", 150, NULL, 0, &err) != RADIUM_STATUS_OK) {
            churn_failures++;
            radium_error_free(err);
            err = NULL;
        }
        if (radium_hook_set_enabled(engine, "t_c", iterations % 2 == 0, NULL) !=
            RADIUM_STATUS_OK) {
            churn_failures++;
        }
        if (radium_hook_unregister(engine, "churn", NULL) != RADIUM_STATUS_OK) {
            churn_failures++;
        }
        iterations++;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
    }

    CHECK(atomic_load(&shared.good) == THREADS * RUNS_PER_THREAD);
    CHECK(atomic_load(&shared.bad) == 0);
    CHECK(atomic_load(&a->calls) == THREADS * RUNS_PER_THREAD);
    CHECK(atomic_load(&b->calls) == THREADS * RUNS_PER_THREAD);
    CHECK(atomic_load(&a->misses) == 0);
    CHECK(atomic_load(&b->misses) == 0);
    CHECK(churn_failures == 0);
    CHECK(atomic_load(&churn_destroyed) == iterations); /* every churn hook destroyed once */
    CHECK(atomic_load(&destroyed) == 0);
    radium_engine_free(engine);
    CHECK(atomic_load(&destroyed) == 3);
    CHECK(atomic_load(&churn_destroyed) == iterations);
}

/* ------------------------------------------------------------------- main */

int main(void)
{
    test_version();
    if (radium_abi_version() != RADIUM_ABI_VERSION) {
        fprintf(stderr, "ABI mismatch: library %u, header %d\n", radium_abi_version(),
                RADIUM_ABI_VERSION);
        printf("%d passed, %d failed\n", g_passed, g_failed);
        return 1;
    }
    test_engine_new();
    test_register_misuse();

    RadiumEngine *engine = new_engine();
    test_priority(engine);
    test_stop(engine);
    test_failures(engine);
    test_matcher_enable_unregister(engine);
    test_self_remove_and_timeout(engine);
    test_execute_misuse(engine);
    test_reply_misuse_outside();
    test_request(engine);
    test_null_error_out(engine);
    radium_engine_free(engine);

    test_lifecycle();
    test_threads();

    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed > 0 ? 1 : 0;
}

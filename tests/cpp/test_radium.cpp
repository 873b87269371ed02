// test_radium.cpp: a self-checking test of the radium C ABI from C++17, written
// the way a C++ host uses it: RAII owners (std::unique_ptr with custom
// deleters) for every engine, error and string the library hands out, hook
// state owned by the engine once (and only once) registration succeeds, and
// plain function pointers (a static trampoline, captureless lambdas) as
// callbacks. No exception crosses into the library.
//
// Covers the same ground as tests/c/test_radium.c except the threads test:
// every exported function, every documented misuse, hook behaviours, the
// request door, use after destroy, NULL error out-parameters.
//
// Build (from the repository root):
//   g++ -std=c++17 -Wall -Wextra -Werror -I include tests/cpp/test_radium.cpp
//       -o /tmp/t_cpp_shared -L target/debug -lradium -Wl,-rpath,$PWD/target/debug
//   g++ -std=c++17 -Wall -Wextra -Werror -I include tests/cpp/test_radium.cpp
//       -o /tmp/t_cpp_static target/debug/libradium.a -lpthread -ldl -lm
// (each command on one line)
//
// Output: failed checks on stderr (file:line and expression), then one line
// `N passed, M failed` on stdout; the exit status is non-zero if M > 0.

#include "radium.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

// ------------------------------------------------------------------ checks

int g_passed = 0;
int g_failed = 0;

void check_at(bool ok, const char* file, int line, const std::string& expr) {
  if (ok) {
    ++g_passed;
    return;
  }
  ++g_failed;
  std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr.c_str());
}

#define CHECK(expr) check_at(static_cast<bool>(expr), __FILE__, __LINE__, #expr)

bool contains(const char* text, const char* needle) {
  return text != nullptr && std::strstr(text, needle) != nullptr;
}

void check_text_at(const char* text, const char* needle, bool want, const char* file, int line) {
  const bool found = contains(text, needle);
  check_at(found == want, file, line,
           std::string("text ") + (want ? "contains `" : "does not contain `") + needle + "`");
  if (found != want) {
    std::fprintf(stderr, "    text: %s\n", text != nullptr ? text : "(null)");
  }
}

#define CHECK_HAS(text, needle) check_text_at((text), (needle), true, __FILE__, __LINE__)
#define CHECK_LACKS(text, needle) check_text_at((text), (needle), false, __FILE__, __LINE__)

// `first` occurs in `text`, before `second`.
bool occurs_before(const char* text, const char* first, const char* second) {
  const char* a = text != nullptr ? std::strstr(text, first) : nullptr;
  const char* b = text != nullptr ? std::strstr(text, second) : nullptr;
  return a != nullptr && b != nullptr && a < b;
}

// ------------------------------------------------------------ RAII owners

struct EngineDeleter {
  void operator()(RadiumEngine* engine) const noexcept { radium_engine_free(engine); }
};
struct ErrorDeleter {
  void operator()(RadiumError* error) const noexcept { radium_error_free(error); }
};
struct StringDeleter {
  void operator()(char* text) const noexcept { radium_string_free(text); }
};

using EnginePtr = std::unique_ptr<RadiumEngine, EngineDeleter>;
using ErrorPtr = std::unique_ptr<RadiumError, ErrorDeleter>;
using StringPtr = std::unique_ptr<char, StringDeleter>;

// What one fallible call produced: its status, the error it stored (owned),
// and the string it returned, if any (owned).
struct Call {
  RadiumStatus status = RADIUM_STATUS_OK;
  ErrorPtr error;
  StringPtr text;

  bool ok() const { return status == RADIUM_STATUS_OK; }
  const char* str() const { return text.get(); }
  const char* message() const { return radium_error_message(error.get()); }
};

// Runs `fn(RadiumError**)`, taking ownership of the error it stores.
template <class Fn>
Call capture(Fn&& fn) {
  RadiumError* raw_error = nullptr;
  Call call;
  call.status = fn(&raw_error);
  call.error.reset(raw_error);
  return call;
}

// Runs `fn(char**, RadiumError**)`, taking ownership of the string and error.
template <class Fn>
Call capture_text(Fn&& fn) {
  RadiumError* raw_error = nullptr;
  char* raw_text = nullptr;
  Call call;
  call.status = fn(&raw_text, &raw_error);
  call.error.reset(raw_error);
  call.text.reset(raw_text);
  return call;
}

void check_ok_at(const Call& call, const char* file, int line, const char* expr) {
  check_at(call.ok(), file, line,
           std::string(expr) + " succeeds (status " + std::to_string(call.status) + ")");
  if (call.error) {
    std::fprintf(stderr, "    message: %s\n", call.message());
  }
}

void check_fails_at(const Call& call, RadiumStatus want, std::initializer_list<const char*> needles,
                    const char* file, int line, const char* expr) {
  check_at(call.status == want, file, line,
           std::string(expr) + " fails with status " + std::to_string(want) + " (got " +
               std::to_string(call.status) + ")");
  if (call.status != want && call.error) {
    std::fprintf(stderr, "    message: %s\n", call.message());
  }
  check_at(call.error != nullptr, file, line, "the failing call stored a RadiumError");
  check_at(radium_error_status(call.error.get()) == want, file, line,
           "radium_error_status(error) is the returned status");
  for (const char* needle : needles) {
    check_text_at(call.message(), needle, true, file, line);
  }
  check_at(call.text == nullptr, file, line, "a failing call returns no string");
}

#define CHECK_OK(call) check_ok_at((call), __FILE__, __LINE__, #call)
#define CHECK_FAILS(call, want, ...) \
  check_fails_at((call), (want), {__VA_ARGS__}, __FILE__, __LINE__, #call)

// Thin wrappers: the C function, its out-parameters captured in a Call.
Call execute(const RadiumEngine* engine, const char* hook_type, const char* data) {
  return capture_text([&](char** out, RadiumError** err) {
    return radium_hooks_execute(engine, hook_type, data, out, err);
  });
}

Call request(const RadiumEngine* engine, const char* json) {
  return capture_text([&](char** out, RadiumError** err) {
    return radium_request(engine, json, out, err);
  });
}

Call set_enabled(const RadiumEngine* engine, const char* name, bool enabled) {
  return capture([&](RadiumError** err) { return radium_hook_set_enabled(engine, name, enabled, err); });
}

Call unregister(const RadiumEngine* engine, const char* name) {
  return capture([&](RadiumError** err) { return radium_hook_unregister(engine, name, err); });
}

struct NewEngine {
  Call call;
  EnginePtr engine;
};

NewEngine make_engine(const char* config_json) {
  RadiumEngine* raw = nullptr;
  NewEngine result;
  result.call = capture([&](RadiumError** err) { return radium_engine_new(config_json, &raw, err); });
  result.engine.reset(raw);
  return result;
}

EnginePtr new_engine() {
  NewEngine made = make_engine(nullptr);
  CHECK_OK(made.call);
  if (!made.engine) {
    std::fprintf(stderr, "cannot create an engine; giving up\n");
    std::exit(2);
  }
  return std::move(made.engine);
}

// ------------------------------------------------------------------ hooks

enum class Behaviour {
  Continue,         // returns 0, no result
  Tag,              // modify: data = {"last": "<name>"}; appends the name to *order
  Stop,             // stop, reason "frozen"
  FailWithMessage,  // returns 7 after radium_hook_reply_set_error("disk on fire")
  FailBare,         // returns 3 without a message
  BadResult,        // misuses the reply, then returns 0
  SoftError,        // result {"action":"error","message":"soft failure"}
  RemoveSelf,       // unregisters itself while its chain runs
  Slow,             // sleeps 60 ms, then answers modify {"slow":true}
};

struct HookState {
  std::string name;
  Behaviour behaviour = Behaviour::Continue;
  std::string expect;  // a substring every context must contain (empty: none)
  int calls = 0;
  int misses = 0;  // contexts lacking `expect`, or with a wrong length
  int* destroyed = nullptr;
  std::string* order = nullptr;
  const RadiumEngine* engine = nullptr;

  std::int32_t run(const char* context, std::size_t length, RadiumHookReply* reply);
};

std::unique_ptr<HookState> make_state(std::string name, Behaviour behaviour,
                                      std::string expect = {}, int* destroyed = nullptr) {
  auto state = std::make_unique<HookState>();
  state->name = std::move(name);
  state->behaviour = behaviour;
  state->expect = std::move(expect);
  state->destroyed = destroyed;
  return state;
}

// The destroy function of every engine-owned HookState: a captureless lambda.
constexpr RadiumDestroyFn destroy_state = [](void* user_data) noexcept {
  auto* state = static_cast<HookState*>(user_data);
  if (state->destroyed != nullptr) {
    ++*state->destroyed;
  }
  delete state;
};

// The callback of every HookState: no exception escapes into the library.
std::int32_t hook_trampoline(void* user_data, const char* context, std::size_t length,
                             RadiumHookReply* reply) noexcept {
  try {
    return static_cast<HookState*>(user_data)->run(context, length, reply);
  } catch (...) {
    radium_hook_reply_set_error(reply, "C++ exception in hook", nullptr);
    return -1;
  }
}

Call reply_result(RadiumHookReply* reply, const char* json) {
  return capture([&](RadiumError** err) { return radium_hook_reply_set_result(reply, json, err); });
}

Call reply_error(RadiumHookReply* reply, const char* message) {
  return capture([&](RadiumError** err) { return radium_hook_reply_set_error(reply, message, err); });
}

void reply_misuse(RadiumHookReply* reply) {
  CHECK_FAILS(reply_result(reply, R"({"action":"explode"})"), RADIUM_STATUS_INVALID_ARGUMENT,
              "invalid hook result", "explode");
  CHECK(radium_hook_reply_set_result(reply, R"({"action":"explode"})", nullptr) ==
        RADIUM_STATUS_INVALID_ARGUMENT);
  CHECK_FAILS(reply_result(reply, "[1]"), RADIUM_STATUS_INVALID_ARGUMENT, "expected an object");
  CHECK_FAILS(reply_result(reply, R"({"action":"modify"})"), RADIUM_STATUS_INVALID_ARGUMENT,
              "needs a `data` field");
  CHECK_FAILS(reply_result(reply, nullptr), RADIUM_STATUS_NULL_ARGUMENT, "result_json");
  CHECK_FAILS(reply_result(reply, "{"), RADIUM_STATUS_INVALID_JSON, "result_json");
  CHECK_FAILS(reply_result(reply, "\"\xff\""), RADIUM_STATUS_INVALID_UTF8, "result_json");
  CHECK_FAILS(reply_error(reply, nullptr), RADIUM_STATUS_NULL_ARGUMENT, "message");
  CHECK_FAILS(reply_error(reply, "\xff\xfe"), RADIUM_STATUS_INVALID_UTF8, "message");
  // A message set by a hook that then returns 0 is not used.
  CHECK_OK(reply_error(reply, "ignored message"));
}

std::int32_t HookState::run(const char* context, std::size_t length, RadiumHookReply* reply) {
  ++calls;
  if (context == nullptr || std::strlen(context) != length ||
      !contains(context, R"("hook_type":")") ||
      (!expect.empty() && !contains(context, expect.c_str()))) {
    ++misses;
  }
  switch (behaviour) {
    case Behaviour::Continue:
      return 0;
    case Behaviour::Tag: {
      if (order != nullptr) {
        *order += name + ",";
      }
      const std::string result = R"({"action":"modify","data":{"last":")" + name + R"("}})";
      return radium_hook_reply_set_result(reply, result.c_str(), nullptr) == RADIUM_STATUS_OK ? 0 : 1;
    }
    case Behaviour::Stop:
      return radium_hook_reply_set_result(reply, R"({"action":"stop","reason":"frozen"})",
                                          nullptr) == RADIUM_STATUS_OK
                 ? 0
                 : 1;
    case Behaviour::FailWithMessage:
      if (radium_hook_reply_set_error(reply, "disk on fire", nullptr) != RADIUM_STATUS_OK) {
        ++misses;
      }
      return 7;
    case Behaviour::FailBare:
      return 3;
    case Behaviour::BadResult:
      reply_misuse(reply);
      return 0;
    case Behaviour::SoftError:
      return radium_hook_reply_set_result(reply, R"({"action":"error","message":"soft failure"})",
                                          nullptr) == RADIUM_STATUS_OK
                 ? 0
                 : 1;
    case Behaviour::RemoveSelf: {
      int* const counter = destroyed;  // this state stays alive until the chain is over
      CHECK_OK(unregister(engine, name.c_str()));
      CHECK(counter != nullptr && *counter == 0);
      const Call list = request(engine, R"({"command":"hooks-list"})");
      CHECK_OK(list);
      CHECK_LACKS(list.str(), R"("name":"self_rm")");
      return 0;
    }
    case Behaviour::Slow:
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
      return radium_hook_reply_set_result(reply, R"({"data":{"slow":true}})", nullptr) ==
                     RADIUM_STATUS_OK
                 ? 0
                 : 1;
  }
  return 1;
}

// Registers `state` as a hook. On success the engine owns it (destroy_state
// frees it); on failure it stays ours, and the unique_ptr frees it.
Call register_hook(const RadiumEngine* engine, std::unique_ptr<HookState> state,
                   const char* hook_type, std::int32_t priority = 100,
                   const char* matcher = nullptr, std::uint64_t timeout_ms = 0) {
  Call call = capture([&](RadiumError** err) {
    return radium_hook_register(engine, state->name.c_str(), hook_type, priority, matcher,
                                timeout_ms, hook_trampoline, state.get(), destroy_state, err);
  });
  if (call.ok()) {
    static_cast<void>(state.release());  // owned by the engine now
  }
  return call;
}

// Registers `state`, checking success; returns an observer pointer, valid
// until the hook is destroyed.
HookState* add_hook_at(const RadiumEngine* engine, std::unique_ptr<HookState> state,
                       const char* hook_type, std::int32_t priority, const char* matcher,
                       std::uint64_t timeout_ms, const char* file, int line) {
  HookState* observer = state.get();
  const Call call = register_hook(engine, std::move(state), hook_type, priority, matcher, timeout_ms);
  check_ok_at(call, file, line, "register_hook");
  return call.ok() ? observer : nullptr;
}

#define ADD_HOOK(engine, state, type, priority, matcher, timeout) \
  add_hook_at((engine), (state), (type), (priority), (matcher), (timeout), __FILE__, __LINE__)

// A pointer no radium function returns, to see that out-parameters stay untouched.
char g_sentinel_byte = 0;
RadiumEngine* const kSentinelEngine = reinterpret_cast<RadiumEngine*>(&g_sentinel_byte);
RadiumError* const kSentinelError = reinterpret_cast<RadiumError*>(&g_sentinel_byte);
char* const kSentinelString = &g_sentinel_byte;

// ----------------------------------------------------------------- version

void test_version() {
  const char* version = radium_version();
  CHECK(version != nullptr);
  CHECK(version != nullptr && *version != '\0');
  CHECK(version != nullptr && std::strcmp(version, "0.1.0") == 0);
  CHECK(radium_version() == version);
  CHECK(radium_abi_version() == RADIUM_ABI_VERSION);
}

// -------------------------------------------------------------- engine_new

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "radium-cpp-test-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) != nullptr) {
      path_ = buffer.data();
    }
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) {
      fs::remove_all(path_, ignored);
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

bool write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

// A workspace whose hooks.toml is broken: the engine is created; a chain
// with nothing to run completes, one with a hook to run fails with the
// file's error (naming `where` and `what`) and runs none; the request door
// answers the same error with code "config", and hooks-list warns.
void check_broken_workspace(const std::string& config, const char* where, const char* what) {
  NewEngine made = make_engine(config.c_str());
  CHECK_OK(made.call);
  if (!made.engine) {
    return;
  }
  const RadiumEngine* engine = made.engine.get();
  CHECK_HAS(request(engine, R"({"command":"ping"})").str(), R"("data":"pong")");
  CHECK_HAS(execute(engine, "before_model", "{}").str(), R"("status":"completed")");

  static int destroyed;  // static: may be destroyed after this function returns
  destroyed = 0;
  HookState* state = ADD_HOOK(engine, make_state("broken_cfg", Behaviour::Continue, {}, &destroyed),
                              "before_model", 100, nullptr, 0);
  CHECK_FAILS(execute(engine, "before_model", "{}"), RADIUM_STATUS_INVALID_ARGUMENT, where, what);
  CHECK(state != nullptr && state->calls == 0);

  const Call refused = request(engine, R"({"command":"hooks-execute","args":{"hook_type":"before_model"}})");
  CHECK_HAS(refused.str(), R"("code":"config")");
  CHECK_HAS(refused.str(), R"("ok":false)");
  CHECK_HAS(refused.str(), where);
  CHECK(state != nullptr && state->calls == 0);

  const Call list = request(engine, R"({"command":"hooks-list"})");
  CHECK_HAS(list.str(), R"("name":"broken_cfg")");
  CHECK_HAS(list.str(), R"("warnings":[)");
  CHECK_HAS(list.str(), where);

  made.engine.reset();
  CHECK(destroyed == 1);
}

void test_engine_new() {
  for (const char* config : {static_cast<const char*>(nullptr), "{}", "null"}) {
    NewEngine made = make_engine(config);
    CHECK_OK(made.call);
    CHECK(made.engine != nullptr);
  }

  // *error is untouched on success; *engine_out on failure.
  {
    RadiumEngine* raw = nullptr;
    RadiumError* err = kSentinelError;
    CHECK(radium_engine_new("{}", &raw, &err) == RADIUM_STATUS_OK);
    EnginePtr owner(raw);
    CHECK(err == kSentinelError);
    CHECK(owner != nullptr);
    raw = kSentinelEngine;
    err = nullptr;
    CHECK(radium_engine_new("{", &raw, &err) == RADIUM_STATUS_INVALID_JSON);
    ErrorPtr error_owner(err);
    CHECK(raw == kSentinelEngine);
    CHECK(radium_error_status(error_owner.get()) == RADIUM_STATUS_INVALID_JSON);
  }

  CHECK_FAILS(make_engine("{").call, RADIUM_STATUS_INVALID_JSON, "config_json");
  CHECK_FAILS(make_engine("3").call, RADIUM_STATUS_INVALID_ARGUMENT, "must be an object");
  CHECK_FAILS(make_engine("[]").call, RADIUM_STATUS_INVALID_ARGUMENT, "must be an object");
  CHECK_FAILS(make_engine(R"({"nope":1})").call, RADIUM_STATUS_INVALID_ARGUMENT, "nope");
  CHECK_FAILS(make_engine(R"({"workspace":3})").call, RADIUM_STATUS_INVALID_ARGUMENT,
              "engine configuration");
  CHECK_FAILS(make_engine("\"\xff\"").call, RADIUM_STATUS_INVALID_UTF8, "config_json");
  CHECK(make_engine("{").engine == nullptr);
  CHECK_FAILS(capture([](RadiumError** err) { return radium_engine_new(nullptr, nullptr, err); }),
              RADIUM_STATUS_NULL_ARGUMENT, "engine_out");
  CHECK_FAILS(capture([](RadiumError** err) { return radium_engine_new("{}", nullptr, err); }),
              RADIUM_STATUS_NULL_ARGUMENT, "engine_out");

  // Workspaces: .radium/hooks.toml.
  fs::path kept;
  {
    TempDir dir;
    kept = dir.path();
    CHECK(!dir.path().empty());
    const std::string config = R"({"workspace":")" + dir.path().string() + R"(","radium_home":")" +
                               dir.path().string() + R"(/home"})";
    const fs::path toml = dir.path() / ".radium" / "hooks.toml";

    {
      NewEngine made = make_engine(config.c_str());  // no .radium: fine
      CHECK_OK(made.call);
    }
    std::error_code ec;
    CHECK(fs::create_directory(dir.path() / ".radium", ec));

    // An untrusted workspace's file is not applied, and hooks-list says why;
    // trusting the workspace applies it.
    CHECK(write_file(toml, "[[hooks]\n"));
    {
      NewEngine made = make_engine(config.c_str());
      CHECK_OK(made.call);
      CHECK_HAS(request(made.engine.get(), R"({"command":"hooks-list"})").str(), "is not trusted");
      CHECK_HAS(request(made.engine.get(), R"({"command":"trust"})").str(), R"("trusted":true)");
      CHECK_HAS(request(made.engine.get(), R"({"command":"hooks-list"})").str(), "hooks.toml:1:");
    }

    // A broken file does not stop the engine: the chains with a hook to run
    // fail with its error, which names the file and line.
    CHECK(write_file(toml, "[[hooks]\n"));
    check_broken_workspace(config, "hooks.toml:1:", "hooks.toml:1:");

    CHECK(write_file(toml, "[[hooks]]\nname = \"x\"\npriorty = 3\ntype = \"before_tool\"\n"));
    check_broken_workspace(config, "hooks.toml:3:", "priorty");

    // Not UTF-8: the file cannot be read (no line: 0:0).
    CHECK(write_file(toml, "\xff\xfe\n"));
    check_broken_workspace(config, "hooks.toml:0:0:", "UTF-8");

    CHECK(write_file(toml,
                     "[[hooks]]\n"
                     "name = \"cfg_hook\"\n"
                     "type = \"before_model\"\n"
                     "priority = 7\n"
                     "enabled = false\n"
                     "\n"
                     "[[hooks]]\n"
                     "name = \"cfg_typed\"\n"
                     "type = \"before_tool\"\n"));
    NewEngine made = make_engine(config.c_str());
    CHECK_OK(made.call);
    if (made.engine) {
      const RadiumEngine* engine = made.engine.get();
      // static: a hook left registered may be destroyed after this function returns.
      static int destroyed;
      destroyed = 0;
      HookState* cfg = ADD_HOOK(engine, make_state("cfg_hook", Behaviour::Continue, {}, &destroyed),
                                "before_model", 100, nullptr, 0);
      const Call list = request(engine, R"({"command":"hooks-list"})");
      CHECK_HAS(list.str(),
                R"({"enabled":false,"hook_type":"before_model","matcher":null,"name":"cfg_hook","priority":7,"timeout_ms":null})");
      const Call skipped = execute(engine, "before_model", "{}");
      CHECK_LACKS(skipped.str(), "cfg_hook");
      CHECK(cfg != nullptr && cfg->calls == 0);
      CHECK_OK(set_enabled(engine, "cfg_hook", true));
      const Call ran = execute(engine, "before_model", "{}");
      CHECK_HAS(ran.str(), R"("name":"cfg_hook","status":"continued")");
      CHECK(cfg != nullptr && cfg->calls == 1);

      static int typed_destroyed;  // static: may be destroyed after this function returns

      typed_destroyed = 0;
      CHECK_FAILS(register_hook(engine, make_state("cfg_typed", Behaviour::Continue, {}, &typed_destroyed),
                                "after_model"),
                  RADIUM_STATUS_INVALID_ARGUMENT, "hooks.toml:7", "configured as before_tool");
      CHECK(typed_destroyed == 0);

      made.engine.reset();
      CHECK(destroyed == 1);
      CHECK(typed_destroyed == 0);
    }
  }
  std::error_code ec;
  CHECK(!kept.empty() && !fs::exists(kept, ec));
}

// ---------------------------------------------------- registration misuse

void test_register_misuse() {
  EnginePtr engine = new_engine();
  // static: a hook left registered may be destroyed after this function returns.
  static int destroyed;
  destroyed = 0;
  HookState state;  // never handed over: every registration below fails
  state.name = "victim";
  state.destroyed = &destroyed;

  auto reg = [&](const RadiumEngine* e, const char* name, const char* type, const char* matcher,
                 RadiumHookFn callback) {
    return capture([&](RadiumError** err) {
      return radium_hook_register(e, name, type, 100, matcher, 0, callback, &state, destroy_state,
                                  err);
    });
  };
  const RadiumEngine* e = engine.get();
  CHECK_FAILS(reg(nullptr, "victim", "before_model", nullptr, hook_trampoline),
              RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
  CHECK_FAILS(reg(e, nullptr, "before_model", nullptr, hook_trampoline),
              RADIUM_STATUS_NULL_ARGUMENT, "`name`");
  CHECK_FAILS(reg(e, "victim", nullptr, nullptr, hook_trampoline), RADIUM_STATUS_NULL_ARGUMENT,
              "`hook_type`");
  CHECK_FAILS(reg(e, "victim", "before_model", nullptr, nullptr), RADIUM_STATUS_NULL_ARGUMENT,
              "`callback`");
  CHECK_FAILS(reg(e, "\xff\xfe", "before_model", nullptr, hook_trampoline),
              RADIUM_STATUS_INVALID_UTF8, "`name`");
  CHECK_FAILS(reg(e, "victim", "before\xff", nullptr, hook_trampoline),
              RADIUM_STATUS_INVALID_UTF8, "`hook_type`");
  CHECK_FAILS(reg(e, "victim", "before_lunch", nullptr, hook_trampoline),
              RADIUM_STATUS_UNKNOWN_HOOK_TYPE, "before_lunch", "valid types are", "before_model");
  CHECK_FAILS(reg(e, "", "before_model", nullptr, hook_trampoline),
              RADIUM_STATUS_INVALID_ARGUMENT, "cannot be empty");
  CHECK_FAILS(reg(e, "  ", "before_model", nullptr, hook_trampoline),
              RADIUM_STATUS_INVALID_ARGUMENT, "cannot be empty");
  CHECK_FAILS(reg(e, "new\nline", "before_model", nullptr, hook_trampoline),
              RADIUM_STATUS_INVALID_ARGUMENT, "control characters");
  const std::string long_name(129, 'x');
  CHECK_FAILS(reg(e, long_name.c_str(), "before_model", nullptr, hook_trampoline),
              RADIUM_STATUS_INVALID_ARGUMENT, "at most 128 bytes");
  CHECK_FAILS(reg(e, "victim", "before_model", "view", hook_trampoline),
              RADIUM_STATUS_INVALID_ARGUMENT, "matchers apply only");
  CHECK_FAILS(reg(e, "victim", "before_tool", "a||b", hook_trampoline),
              RADIUM_STATUS_INVALID_ARGUMENT, "a||b");
  CHECK_FAILS(reg(e, "victim", "before_tool", "", hook_trampoline),
              RADIUM_STATUS_INVALID_ARGUMENT, "empty");
  CHECK_FAILS(reg(e, "victim", "before_tool", "\xff", hook_trampoline),
              RADIUM_STATUS_INVALID_UTF8, "`matcher`");
  CHECK(radium_hook_register(e, nullptr, "before_model", 100, nullptr, 0, hook_trampoline, &state,
                             destroy_state, nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
  CHECK(destroyed == 0);
  CHECK(state.calls == 0);

  // Now a successful one, then a duplicate.
  static int owned_destroyed;  // static: may be destroyed after this function returns
  owned_destroyed = 0;
  CHECK_OK(register_hook(e, make_state("victim", Behaviour::Continue, {}, &owned_destroyed),
                         "before_model"));
  static int dup_destroyed;  // static: may be destroyed after this function returns
  dup_destroyed = 0;
  CHECK_FAILS(register_hook(e, make_state("victim", Behaviour::Continue, {}, &dup_destroyed),
                            "after_model"),
              RADIUM_STATUS_DUPLICATE_HOOK, "victim");
  CHECK(dup_destroyed == 0);
  CHECK(owned_destroyed == 0);
  CHECK_OK(unregister(e, "victim"));
  CHECK(owned_destroyed == 1);
  CHECK_FAILS(unregister(e, "victim"), RADIUM_STATUS_UNKNOWN_HOOK, "victim");
  engine.reset();
  CHECK(owned_destroyed == 1);
  CHECK(destroyed == 0);
}

// ------------------------------------------------------- chain behaviours

void test_priority(const RadiumEngine* engine) {
  std::string order;
  // static: a hook left registered may be destroyed after this function returns.
  static int destroyed;
  destroyed = 0;
  auto tag = [&](const char* name, const char* expect) {
    auto state = make_state(name, Behaviour::Tag, expect, &destroyed);
    state->order = &order;
    return state;
  };
  HookState* mid1 = ADD_HOOK(engine, tag("p_mid1", R"("last":"p_high")"), "before_model", 100, nullptr, 0);
  HookState* low = ADD_HOOK(engine, tag("p_low", R"("last":"p_mid2")"), "before_model", 50, nullptr, 0);
  HookState* high = ADD_HOOK(engine, tag("p_high", R"("last":"input")"), "before_model", 200, nullptr, 0);
  HookState* mid2 = ADD_HOOK(engine, tag("p_mid2", R"("last":"p_mid1")"), "before_model", 100, nullptr, 0);

  for (int round = 0; round < 2; ++round) {
    order.clear();
    const Call out = execute(engine, "before_model", R"({"last":"input"})");
    CHECK_OK(out);
    CHECK(order == "p_high,p_mid1,p_mid2,p_low,");
    CHECK_HAS(out.str(), R"("hook_type":"before_model")");
    CHECK_HAS(out.str(), R"("status":"completed")");
    CHECK_HAS(out.str(), R"("data":{"last":"p_low"})");
    CHECK_HAS(out.str(), R"("stopped_by":null)");
    CHECK_HAS(out.str(), R"("name":"p_high","status":"modified")");
    CHECK(occurs_before(out.str(), R"("name":"p_high")", R"("name":"p_mid1")"));
    CHECK(occurs_before(out.str(), R"("name":"p_mid1")", R"("name":"p_mid2")"));
    CHECK(occurs_before(out.str(), R"("name":"p_mid2")", R"("name":"p_low")"));
  }
  for (const HookState* s : {high, mid1, mid2, low}) {
    CHECK(s != nullptr && s->calls == 2 && s->misses == 0);
  }
  const Call list = request(engine, R"({"command":"hooks-list"})");
  CHECK(occurs_before(list.str(), R"("name":"p_high")", R"("name":"p_mid1")"));
  CHECK(occurs_before(list.str(), R"("name":"p_mid2")", R"("name":"p_low")"));
  CHECK(destroyed == 0);
}

void test_stop(const RadiumEngine* engine) {
  HookState* first = ADD_HOOK(engine, make_state("s_first", Behaviour::Continue, R"("tool_name":"x")"),
                              "after_model", 200, nullptr, 0);
  HookState* stop = ADD_HOOK(engine, make_state("s_stop", Behaviour::Stop), "after_model", 150, nullptr, 0);
  HookState* never = ADD_HOOK(engine, make_state("s_never", Behaviour::Continue), "after_model", 100, nullptr, 0);

  const Call out = execute(engine, "after_model", R"({"tool_name":"x"})");
  CHECK_OK(out);
  CHECK_HAS(out.str(), R"("status":"stopped")");
  CHECK_LACKS(out.str(), R"("status":"completed")");
  CHECK_HAS(out.str(), R"("stopped_by":{"hook":"s_stop","reason":"frozen"})");
  CHECK_HAS(out.str(), R"("reason":"frozen")");
  CHECK_HAS(out.str(), R"("name":"s_first","status":"continued")");
  CHECK_HAS(out.str(), R"("name":"s_stop","status":"stopped")");
  CHECK_LACKS(out.str(), "s_never");
  CHECK(first != nullptr && first->calls == 1 && first->misses == 0);
  CHECK(stop != nullptr && stop->calls == 1);
  CHECK(never != nullptr && never->calls == 0);
}

void test_failures(const RadiumEngine* engine) {
  HookState* msg = ADD_HOOK(engine, make_state("e_msg", Behaviour::FailWithMessage), "error_logging", 500, nullptr, 0);
  HookState* bare = ADD_HOOK(engine, make_state("e_bare", Behaviour::FailBare), "error_logging", 400, nullptr, 0);
  HookState* bad = ADD_HOOK(engine, make_state("e_bad", Behaviour::BadResult), "error_logging", 300, nullptr, 0);
  HookState* soft = ADD_HOOK(engine, make_state("e_soft", Behaviour::SoftError), "error_logging", 200, nullptr, 0);
  HookState* after = ADD_HOOK(engine, make_state("e_after", Behaviour::Tag, R"("error_message":"boom")"),
                              "error_logging", 100, nullptr, 0);

  const Call out = execute(engine, "error_logging", R"({"error_message":"boom"})");
  CHECK_OK(out);
  const char* text = out.str();
  CHECK_HAS(text, R"("status":"completed")");
  CHECK_HAS(text, R"("name":"e_msg","status":"error")");
  CHECK_HAS(text, R"("error":"disk on fire")");
  CHECK_HAS(text, R"("name":"e_bare","status":"error")");
  CHECK_HAS(text, "C hook `e_bare` returned status 3");
  CHECK_HAS(text, R"("name":"e_bad","status":"continued")");
  CHECK_LACKS(text, "ignored message");
  CHECK_LACKS(text, "explode");
  CHECK_HAS(text, R"("name":"e_soft","status":"error")");
  CHECK_HAS(text, R"("error":"soft failure")");
  CHECK_HAS(text, R"("name":"e_after","status":"modified")");
  CHECK_HAS(text, R"("data":{"last":"e_after"})");
  for (const HookState* s : {msg, bare, bad, soft, after}) {
    CHECK(s != nullptr && s->calls == 1 && s->misses == 0);
  }
}

void test_matcher_enable_unregister(const RadiumEngine* engine) {
  static int read_destroyed;  // static: may be destroyed after this function returns
  read_destroyed = 0;
  HookState* reader = ADD_HOOK(engine, make_state("m_read", Behaviour::Continue, {}, &read_destroyed),
                               "before_tool", 150, "read_*|view", 0);
  HookState* all = ADD_HOOK(engine, make_state("m_all", Behaviour::Continue), "before_tool", 100, nullptr, 0);
  if (reader == nullptr || all == nullptr) {
    return;
  }

  CHECK_HAS(execute(engine, "before_tool", R"({"tool_name":"view"})").str(),
            R"("name":"m_read","status":"continued")");
  CHECK(reader->calls == 1);
  {
    const Call out = execute(engine, "before_tool", R"({"tool_name":"edit"})");
    CHECK_LACKS(out.str(), "m_read");
    CHECK_HAS(out.str(), R"("name":"m_all")");
  }
  CHECK(reader->calls == 1);
  for (const char* data : {R"({"tool_name":"read_file"})", R"({"tool_name":"View"})",
                           R"({"tool":"view"})", R"("view")"}) {
    CHECK_OK(execute(engine, "before_tool", data));
  }
  CHECK(reader->calls == 2);
  CHECK(all->calls == 6);

  CHECK_OK(set_enabled(engine, "m_all", false));
  CHECK_LACKS(execute(engine, "before_tool", R"({"tool_name":"view"})").str(), "m_all");
  CHECK(all->calls == 6);
  CHECK_OK(set_enabled(engine, "m_all", true));
  CHECK_HAS(execute(engine, "before_tool", R"({"tool_name":"view"})").str(), R"("name":"m_all")");
  CHECK(all->calls == 7);
  CHECK_FAILS(set_enabled(engine, "ghost", true), RADIUM_STATUS_UNKNOWN_HOOK, "ghost");
  CHECK_FAILS(set_enabled(nullptr, "m_all", true), RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
  CHECK_FAILS(set_enabled(engine, nullptr, true), RADIUM_STATUS_NULL_ARGUMENT, "`name`");
  CHECK_FAILS(set_enabled(engine, "\xff", true), RADIUM_STATUS_INVALID_UTF8, "`name`");

  CHECK_OK(unregister(engine, "m_read"));
  CHECK(read_destroyed == 1);
  CHECK_LACKS(execute(engine, "before_tool", R"({"tool_name":"view"})").str(), "m_read");
  CHECK_FAILS(unregister(engine, "m_read"), RADIUM_STATUS_UNKNOWN_HOOK, "no hook named `m_read`");
  CHECK_FAILS(unregister(nullptr, "m_all"), RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
  CHECK_FAILS(unregister(engine, nullptr), RADIUM_STATUS_NULL_ARGUMENT, "`name`");
  CHECK_FAILS(unregister(engine, "\xff\xfe"), RADIUM_STATUS_INVALID_UTF8, "`name`");
  CHECK(read_destroyed == 1);

  HookState* again = ADD_HOOK(engine, make_state("m_read", Behaviour::Continue, {}, &read_destroyed),
                              "before_tool", 150, "view", 0);
  CHECK_OK(execute(engine, "before_tool", R"({"tool_name":"view"})"));
  CHECK(again != nullptr && again->calls == 1);
}

void test_self_remove_and_timeout(const RadiumEngine* engine) {
  // static: a hook left registered may be destroyed after this function returns.
  static int destroyed;
  destroyed = 0;
  auto self = make_state("self_rm", Behaviour::RemoveSelf, {}, &destroyed);
  self->engine = engine;
  ADD_HOOK(engine, std::move(self), "custom_logging", 200, nullptr, 0);
  HookState* next = ADD_HOOK(engine, make_state("after_rm", Behaviour::Continue), "custom_logging", 100, nullptr, 0);

  {
    const Call out = execute(engine, "custom_logging", "{}");
    CHECK(destroyed == 1);  // the chain is over: destroyed now, exactly once
    CHECK_HAS(out.str(), R"("name":"self_rm","status":"continued")");
    CHECK_HAS(out.str(), R"("name":"after_rm")");
  }
  CHECK_LACKS(execute(engine, "custom_logging", "{}").str(), "self_rm");
  CHECK(next != nullptr && next->calls == 2);
  CHECK(destroyed == 1);

  HookState* slow = ADD_HOOK(engine, make_state("slow", Behaviour::Slow), "performance_monitoring", 100, nullptr, 5);
  const Call out = execute(engine, "performance_monitoring", R"({"n":1})");
  CHECK(slow != nullptr && slow->calls == 1);
  CHECK_HAS(out.str(), R"("name":"slow","status":"timed_out")");
  CHECK_HAS(out.str(), "answer was discarded");
  CHECK_HAS(out.str(), R"("data":{"n":1})");
  CHECK_LACKS(out.str(), R"("slow":true)");
  CHECK_HAS(request(engine, R"({"command":"hooks-list"})").str(),
            R"({"enabled":true,"hook_type":"performance_monitoring","matcher":null,"name":"slow","priority":100,"timeout_ms":5})");
}

// ---------------------------------------------------------- execute misuse

void test_execute_misuse(const RadiumEngine* engine) {
  CHECK_FAILS(execute(nullptr, "before_tool", "{}"), RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
  CHECK_FAILS(capture([&](RadiumError** err) {
                return radium_hooks_execute(engine, "before_tool", "{}", nullptr, err);
              }),
              RADIUM_STATUS_NULL_ARGUMENT, "outcome_json_out");
  CHECK_FAILS(execute(engine, nullptr, "{}"), RADIUM_STATUS_NULL_ARGUMENT, "`hook_type`");
  CHECK_FAILS(execute(engine, "before_tool", nullptr), RADIUM_STATUS_NULL_ARGUMENT, "data_json");
  CHECK_FAILS(execute(engine, "before_lunch", "{}"), RADIUM_STATUS_UNKNOWN_HOOK_TYPE,
              "before_lunch", "before_model");
  CHECK_FAILS(execute(engine, "before\xff", "{}"), RADIUM_STATUS_INVALID_UTF8, "hook_type");
  CHECK_FAILS(execute(engine, "before_tool", "{"), RADIUM_STATUS_INVALID_JSON, "data_json");
  CHECK_FAILS(execute(engine, "before_tool", R"({"a":1} trailing)"), RADIUM_STATUS_INVALID_JSON,
              "data_json");
  CHECK_FAILS(execute(engine, "before_tool", "\"\xff\xfe\""), RADIUM_STATUS_INVALID_UTF8,
              "data_json");
  CHECK_FAILS(execute(kSentinelEngine, "before_tool", "{}"), RADIUM_STATUS_INVALID_HANDLE,
              "not live");

  char* out = kSentinelString;
  CHECK(radium_hooks_execute(engine, "before_tool", "{", &out, nullptr) == RADIUM_STATUS_INVALID_JSON);
  CHECK(out == kSentinelString);

  RadiumError* err = kSentinelError;
  out = nullptr;
  CHECK(radium_hooks_execute(engine, "metrics_aggregation", "[1,2]", &out, &err) == RADIUM_STATUS_OK);
  const StringPtr owned(out);
  CHECK(err == kSentinelError);
  CHECK_HAS(owned.get(), R"("hook_type":"metrics_aggregation")");
  CHECK_HAS(owned.get(), R"("status":"completed")");
  CHECK_HAS(owned.get(), R"("data":[1,2])");
  CHECK_HAS(owned.get(), R"("hooks":[])");
  CHECK_HAS(execute(engine, "metrics_aggregation", "null").str(), R"("data":null)");
}

void test_reply_misuse_outside() {
  CHECK_FAILS(reply_result(nullptr, "{}"), RADIUM_STATUS_NULL_ARGUMENT, "`reply`");
  CHECK_FAILS(reply_result(nullptr, nullptr), RADIUM_STATUS_NULL_ARGUMENT, "`reply`");
  CHECK_FAILS(reply_error(nullptr, "oops"), RADIUM_STATUS_NULL_ARGUMENT, "`reply`");
  CHECK_FAILS(reply_error(nullptr, nullptr), RADIUM_STATUS_NULL_ARGUMENT, "`reply`");
  CHECK(radium_hook_reply_set_result(nullptr, "{}", nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
  CHECK(radium_hook_reply_set_error(nullptr, "oops", nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
}

// ----------------------------------------------------------------- request

void test_request(const RadiumEngine* engine) {
  HookState* r = ADD_HOOK(engine, make_state("r_hook", Behaviour::Continue, R"("metadata":{"who":"cpp"})"),
                          "after_tool", 120, "grep", 5000);
  if (r == nullptr) {
    return;
  }
  {
    const Call out = request(engine, R"({"command":"ping"})");
    CHECK_OK(out);
    CHECK_HAS(out.str(), R"("ok":true)");
    CHECK_HAS(out.str(), "pong");
  }
  CHECK_HAS(request(engine, R"({"command":"ping","args":null,"tag":"t1","cwd":"/tmp"})").str(),
            R"("ok":true)");
  {
    const Call out = request(engine, R"({"command":"version"})");
    CHECK_HAS(out.str(), R"("ok":true)");
    CHECK_HAS(out.str(), R"("abi_version":1)");
    CHECK_HAS(out.str(), R"("version":"0.1.0")");
  }
  CHECK_HAS(request(engine, R"({"command":"hooks-list"})").str(),
            R"({"enabled":true,"hook_type":"after_tool","matcher":"grep","name":"r_hook","priority":120,"timeout_ms":5000})");

  const char* const exec_grep =
      R"({"command":"hooks-execute","args":{"hook_type":"after_tool","data":{"tool_name":"grep"},"metadata":{"who":"cpp"}}})";
  {
    const Call out = request(engine, exec_grep);
    CHECK_HAS(out.str(), R"("ok":true)");
    CHECK_HAS(out.str(), R"("status":"completed")");
    CHECK_HAS(out.str(), R"("name":"r_hook","status":"continued")");
  }
  CHECK(r->calls == 1 && r->misses == 0);

  {
    const Call out = request(engine, R"({"command":"hooks-disable","args":{"name":"r_hook"}})");
    CHECK_HAS(out.str(), R"("ok":true)");
    CHECK_HAS(out.str(), R"("enabled":false)");
  }
  CHECK_HAS(request(engine, R"({"command":"hooks-list"})").str(),
            R"({"enabled":false,"hook_type":"after_tool","matcher":"grep","name":"r_hook")");
  CHECK_LACKS(request(engine, exec_grep).str(), "r_hook");
  CHECK(r->calls == 1);
  {
    const Call out = request(engine, R"({"command":"hooks-enable","args":{"name":"r_hook"}})");
    CHECK_HAS(out.str(), R"("ok":true)");
    CHECK_HAS(out.str(), R"("enabled":true)");
  }
  CHECK_HAS(request(engine, exec_grep).str(), R"("name":"r_hook")");
  CHECK(r->calls == 2);

  struct Refusal {
    const char* json;
    const char* code;
  };
  for (const Refusal& refusal : {
           Refusal{R"({"command":"hooks-disable","args":{"name":"ghost"}})", R"("code":"unknown_hook")"},
           Refusal{R"({"command":"hooks-enable"})", R"("code":"invalid_argument")"},
           Refusal{R"({"command":"hooks-execute","args":{"hook_type":"before_lunch"}})", R"("code":"unknown_hook_type")"},
           Refusal{R"({"command":"frobnicate"})", "unknown_command"},
           Refusal{"[1]", "invalid_request"},
           Refusal{R"({"command":"ping","bogus":1})", "invalid_request"},
           Refusal{R"({"command":"ping","args":[1]})", R"("code":"invalid_argument")"},
       }) {
    const Call out = request(engine, refusal.json);
    CHECK_OK(out);  // a refused command is still a successful call
    CHECK_HAS(out.str(), R"("ok":false)");
    CHECK_HAS(out.str(), refusal.code);
  }
  CHECK_HAS(request(engine, R"({"command":"frobnicate"})").str(), "frobnicate");

  CHECK_FAILS(request(engine, "{"), RADIUM_STATUS_INVALID_JSON, "request_json");
  CHECK_FAILS(request(engine, nullptr), RADIUM_STATUS_NULL_ARGUMENT, "request_json");
  CHECK_FAILS(capture([&](RadiumError** err) {
                return radium_request(engine, R"({"command":"ping"})", nullptr, err);
              }),
              RADIUM_STATUS_NULL_ARGUMENT, "response_json_out");
  CHECK_FAILS(request(nullptr, R"({"command":"ping"})"), RADIUM_STATUS_NULL_ARGUMENT, "`engine`");
  CHECK_FAILS(request(engine, "{\"command\":\"\xff\"}"), RADIUM_STATUS_INVALID_UTF8, "request_json");
  CHECK_FAILS(request(kSentinelEngine, R"({"command":"ping"})"), RADIUM_STATUS_INVALID_HANDLE,
              "not live");

  char* out = kSentinelString;
  CHECK(radium_request(engine, "{", &out, nullptr) == RADIUM_STATUS_INVALID_JSON);
  CHECK(out == kSentinelString);
  RadiumError* err = kSentinelError;
  out = nullptr;
  CHECK(radium_request(engine, R"({"command":"ping"})", &out, &err) == RADIUM_STATUS_OK);
  const StringPtr owned(out);
  CHECK(err == kSentinelError);
  CHECK_HAS(owned.get(), "pong");
}

// --------------------------------------------- lifecycle and free functions

void test_lifecycle() {
  EnginePtr engine = new_engine();
  int d1 = 0;
  int d2 = 0;
  ADD_HOOK(engine.get(), make_state("h1", Behaviour::Continue, {}, &d1), "before_model", 100, nullptr, 0);
  ADD_HOOK(engine.get(), make_state("h2", Behaviour::Continue, {}, &d2), "after_tool", 100, "*", 0);

  // A captureless lambda as the callback, a counter on the stack as user
  // data, and no destroy function: the counter stays ours.
  int plain_calls = 0;
  const RadiumHookFn count_calls = [](void* user_data, const char*, std::size_t,
                                      RadiumHookReply*) noexcept -> std::int32_t {
    ++*static_cast<int*>(user_data);
    return 0;
  };
  CHECK_OK(capture([&](RadiumError** err) {
    return radium_hook_register(engine.get(), "h3", "before_model", 100, nullptr, 0, count_calls,
                                &plain_calls, nullptr, err);
  }));
  CHECK_OK(execute(engine.get(), "before_model", "{}"));
  CHECK(plain_calls == 1);

  // Destroying the engine destroys every hook exactly once.
  RadiumEngine* const dead = engine.get();
  engine.reset();
  CHECK(d1 == 1);
  CHECK(d2 == 1);

  // Use after destroy is detected (no engine was created since).
  CHECK_FAILS(request(dead, R"({"command":"ping"})"), RADIUM_STATUS_INVALID_HANDLE, "not live");
  CHECK_FAILS(execute(dead, "before_model", "{}"), RADIUM_STATUS_INVALID_HANDLE, "not live");
  int d3 = 0;
  CHECK_FAILS(register_hook(dead, make_state("h4", Behaviour::Continue, {}, &d3), "before_model"),
              RADIUM_STATUS_INVALID_HANDLE, "not live");
  CHECK(d3 == 0);
  CHECK_FAILS(unregister(dead, "h1"), RADIUM_STATUS_INVALID_HANDLE, "not live");
  CHECK_FAILS(set_enabled(dead, "h1", false), RADIUM_STATUS_INVALID_HANDLE, "not live");
  char* out = kSentinelString;
  CHECK(radium_request(dead, R"({"command":"ping"})", &out, nullptr) == RADIUM_STATUS_INVALID_HANDLE);
  CHECK(out == kSentinelString);
  radium_engine_free(dead);  // a second free is harmless
  CHECK(d1 == 1);
  CHECK(d2 == 1);
  CHECK(plain_calls == 1);
  radium_engine_free(kSentinelEngine);  // never created: ignored

  radium_engine_free(nullptr);
  radium_string_free(nullptr);
  radium_error_free(nullptr);
  CHECK(radium_error_status(nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
  CHECK(radium_error_message(nullptr) != nullptr);
  CHECK(std::strcmp(radium_error_message(nullptr), "") == 0);

  const Call failed = make_engine("{").call;
  CHECK(radium_error_status(failed.error.get()) == RADIUM_STATUS_INVALID_JSON);
  CHECK(failed.message() == radium_error_message(failed.error.get()));  // stable until freed
}

void test_null_error_out(const RadiumEngine* engine) {
  RadiumEngine* e2 = kSentinelEngine;
  char* out = kSentinelString;
  CHECK(radium_engine_new("{", &e2, nullptr) == RADIUM_STATUS_INVALID_JSON);
  CHECK(radium_engine_new("3", &e2, nullptr) == RADIUM_STATUS_INVALID_ARGUMENT);
  CHECK(radium_engine_new(nullptr, nullptr, nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
  CHECK(e2 == kSentinelEngine);
  CHECK(radium_hook_register(engine, "n", "before_lunch", 100, nullptr, 0, hook_trampoline, nullptr,
                             nullptr, nullptr) == RADIUM_STATUS_UNKNOWN_HOOK_TYPE);
  CHECK(radium_hook_unregister(engine, "ghost", nullptr) == RADIUM_STATUS_UNKNOWN_HOOK);
  CHECK(radium_hook_set_enabled(engine, "ghost", true, nullptr) == RADIUM_STATUS_UNKNOWN_HOOK);
  CHECK(radium_hooks_execute(engine, "nope", "{}", &out, nullptr) == RADIUM_STATUS_UNKNOWN_HOOK_TYPE);
  CHECK(radium_hooks_execute(nullptr, "before_tool", "{}", &out, nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
  CHECK(radium_request(engine, "{", &out, nullptr) == RADIUM_STATUS_INVALID_JSON);
  CHECK(radium_request(engine, nullptr, &out, nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
  CHECK(out == kSentinelString);
  CHECK(radium_hook_reply_set_result(nullptr, "{}", nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
  CHECK(radium_hook_reply_set_error(nullptr, "x", nullptr) == RADIUM_STATUS_NULL_ARGUMENT);
}

}  // namespace

int main() {
  test_version();
  if (radium_abi_version() != RADIUM_ABI_VERSION) {
    std::fprintf(stderr, "ABI mismatch: library %u, header %d\n", radium_abi_version(),
                 RADIUM_ABI_VERSION);
    std::printf("%d passed, %d failed\n", g_passed, g_failed);
    return 1;
  }
  test_engine_new();
  test_register_misuse();
  {
    EnginePtr engine = new_engine();
    test_priority(engine.get());
    test_stop(engine.get());
    test_failures(engine.get());
    test_matcher_enable_unregister(engine.get());
    test_self_remove_and_timeout(engine.get());
    test_execute_misuse(engine.get());
    test_reply_misuse_outside();
    test_request(engine.get());
    test_null_error_out(engine.get());
  }
  test_lifecycle();

  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed > 0 ? 1 : 0;
}

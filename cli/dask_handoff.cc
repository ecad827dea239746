#include "dask_handoff.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ztensor/test_pause.h"

namespace zt::cli {
namespace {

using json = nlohmann::json;

// The child reports on this descriptor, one JSON object a line:
// {"progress": [done, total]}, then {"result": {...}} or {"error": {"code",
// "message"}}; its stdout goes to zt's stderr, so nothing a library prints
// can mix into zt's own output.
constexpr int kChannelFd = 3;

// Run with `python -c`: imports the front end, or reports on the channel
// why it cannot (the usual case: ztensor is not installed in that Python).
constexpr const char* kBootstrap = R"(import json, os, sys
try:
    from ztensor._dask_cli import main
except ImportError as e:
    with os.fdopen(3, "w") as channel:
        channel.write(json.dumps({"error": {"code": "unsupported", "message":
            "--scheduler runs ztensor's Dask front end in %s, which cannot import it (%s): "
            "pip install 'ztensor[dask]' there, or set ZT_PYTHON" % (sys.executable, e)}}) + "\n")
    sys.exit(1)
sys.exit(main(sys.argv[1], 3))
)";

volatile std::sig_atomic_t g_signal = 0;
// The write end of a self-pipe: the handler wakes read_channel's poll()
// through it, whichever thread the signal lands on and wherever the reader
// is in its loop (a flag checked before a blocking read() misses a signal
// that arrives between the check and the call, and the child, paused or
// busy, may then never write again).
volatile std::sig_atomic_t g_wake_fd = -1;
extern "C" void on_handoff_signal(int signo) {
  g_signal = signo;
  const int saved = errno;
  if (g_wake_fd >= 0) (void)!::write(g_wake_fd, "s", 1);
  errno = saved;
}

// The request, in ztensor.convert's terms (python/ztensor/_convert.py).
std::string request_json(const std::string& in, const std::string& out, const ConvertOptions& o,
                         const std::string& scheduler, const std::map<std::string, std::string>& storage_options) {
  static constexpr const char* kEfforts[] = {"fast", "balanced", "max"};
  json j = {{"scheduler", scheduler}, {"src", in}, {"dst", out}, {"compression", encoding_name(o.encoding)}};
  // The level the C++ converter got; kDefaultLevel ("the encoding's
  // default") Python spells None.
  j["level"] = o.encoding == Encoding::raw || o.level == kDefaultLevel ? json(nullptr) : json(o.level);
  j["effort"] = o.encoding == Encoding::z4ai && o.effort < 3 ? json(kEfforts[o.effort]) : json(nullptr);
  j["checksum"] = o.digest == DigestAlgo::sha256   ? json("sha256")
                  : o.digest == DigestAlgo::crc32c ? json("crc32c")
                                                   : json(nullptr);
  j["max_shard_size"] = o.max_shard_size ? json(o.max_shard_size) : json(nullptr);
  j["durable"] = o.durable;
  j["storage_options"] = storage_options.empty() ? json(nullptr) : json(storage_options);
  return j.dump();
}

ErrorCode code_from_name(const std::string& name) {
  for (int i = 1; i < kErrorCodeCount; ++i)
    if (name == error_code_name(static_cast<ErrorCode>(i))) return static_cast<ErrorCode>(i);
  return ErrorCode::internal;
}

// In the child: wire the descriptors and exec the interpreter. Only
// async-signal-safe calls from here on.
[[noreturn]] void exec_child(const char* python, int channel_fd, const std::string& request) {
  ::prctl(PR_SET_PDEATHSIG, SIGINT);  // zt killed: the child still cleans up
  ::setpgid(0, 0);  // a terminal's Ctrl-C reaches zt only, which forwards it once
  // Python makes SIGINT a KeyboardInterrupt only if it starts with the default
  // action; zt may have inherited SIG_IGN (a background job of a script, a CI
  // runner), which would leave the forwarded SIGINT without effect.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  if (channel_fd != kChannelFd) {
    ::dup2(channel_fd, kChannelFd);
    ::close(channel_fd);
  }
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  char* const argv[] = {const_cast<char*>(python), const_cast<char*>("-c"), const_cast<char*>(kBootstrap),
                        const_cast<char*>(request.c_str()), nullptr};
  ::execvp(python, argv);
  char line[64];
  const int n = std::snprintf(line, sizeof line, "{\"exec_errno\": %d}\n", errno);
  if (n > 0) (void)!::write(kChannelFd, line, static_cast<size_t>(n));
  ::_exit(127);
}

// Reads the channel to its end, handling each line; forwards a signal zt
// receives meanwhile to the child (once) as SIGINT, which Python turns into
// KeyboardInterrupt and ztensor.convert into "nothing published". `wake` is
// the read end of the handler's self-pipe; `on_line` says whether the line
// reported finished work.
void read_channel(int fd, int wake, pid_t child, const std::function<bool(const std::string&)>& on_line) {
  std::string buffer;
  char chunk[4096];
  bool forwarded = false, work_reported = false;
  for (;;) {
    if (g_signal != 0 && !forwarded) {
      ::kill(child, SIGINT);
      forwarded = true;
    }
    // Between the check and the wait: a signal a test sends here must still
    // reach the child (tests/python/test_dask_cli.py).
    if (work_reported) test_pause("handoff:wait");
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents & POLLIN) {
      while (::read(wake, chunk, sizeof chunk) > 0) {
      }
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<size_t>(n));
    for (size_t eol; (eol = buffer.find('\n')) != std::string::npos; buffer.erase(0, eol + 1)) {
      work_reported = on_line(buffer.substr(0, eol)) || work_reported;
    }
  }
}

}  // namespace

Result<DaskConvertResult> convert_on_dask(const std::string& in, const std::string& out,
                                          const ConvertOptions& options, const std::string& scheduler,
                                          const std::map<std::string, std::string>& storage_options) {
  const char* env = std::getenv(kPythonEnv);
  const std::string python = env && *env ? env : kDefaultPython;
  const std::string request = request_json(in, out, options, scheduler, storage_options);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return Status(ErrorCode::io_error, std::string("--scheduler: cannot create a pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Status(ErrorCode::io_error, std::string("--scheduler: cannot start Python: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    // dup2 clears O_CLOEXEC on the copy the interpreter keeps.
    exec_child(python.c_str(), fds[1], request);
  }
  ::close(fds[1]);

  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int err = errno;
    ::kill(pid, SIGINT);
    ::close(fds[0]);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return Status(ErrorCode::io_error, std::string("--scheduler: cannot create a pipe: ") + std::strerror(err));
  }
  g_wake_fd = wake[1];
  struct sigaction sa {};
  sa.sa_handler = on_handoff_signal;  // no SA_RESTART: waitpid() returns to the loop below
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {};
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);

  std::optional<DaskConvertResult> result;
  std::optional<Status> failure;
  read_channel(fds[0], wake[0], pid, [&](const std::string& line) {
    const json msg = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!msg.is_object()) return false;  // not ours
    if (msg.contains("progress")) {
      const uint64_t done = msg["progress"].at(0).get<uint64_t>();
      if (options.progress) options.progress(done, msg["progress"].at(1).get<uint64_t>());
      return done > 0;
    }
    if (msg.contains("result")) {
      const json& r = msg["result"];
      DaskConvertResult d;
      d.stats.objects = r.at("objects").get<uint64_t>();
      d.stats.bytes = r.at("bytes").get<uint64_t>();
      d.stats.warnings = r.at("warnings").get<std::vector<std::string>>();
      d.stats.files = r.at("files").get<std::vector<std::string>>();
      d.input_format = r.at("src_format").get<std::string>();
      result = std::move(d);
    } else if (msg.contains("error")) {
      failure = Status(code_from_name(msg["error"].value("code", "internal")), msg["error"].value("message", ""));
    } else if (msg.contains("exec_errno")) {
      const int err = msg["exec_errno"].get<int>();
      failure = Status(ErrorCode::unsupported, "--scheduler runs ztensor's Dask front end in Python, but '" + python +
                                                   "' cannot be run (" + std::strerror(err) + "): install Python 3 " +
                                                   "and " + kDaskInstallHint + ", or set " + kPythonEnv);
    }
    return false;
  });
  ::close(fds[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  g_wake_fd = -1;
  ::close(wake[0]);
  ::close(wake[1]);

  if (g_signal != 0 && !result) {
    std::fprintf(stderr, "zt: interrupted, nothing written to %s\n", out.c_str());
    std::fflush(stderr);
    std::_Exit(128 + g_signal);
  }
  if (failure) return *failure;
  if (result) return *std::move(result);
  const std::string how = WIFEXITED(wstatus) ? "exited with status " + std::to_string(WEXITSTATUS(wstatus))
                          : WIFSIGNALED(wstatus) ? "was killed by signal " + std::to_string(WTERMSIG(wstatus))
                                                 : "stopped";
  return Status(ErrorCode::internal, "--scheduler: the Python front end ('" + python + "') " + how +
                                         " without reporting a result (see its messages above)");
}

}  // namespace zt::cli

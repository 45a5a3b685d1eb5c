#include "launcher.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace accel::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBadOutput = 2;
constexpr int kJobFailed = 4;
// How long the other ranks get once rank 0 (the store's host) has ended after a failure: they see its
// connections close at once, and need only a moment to say so.
constexpr std::chrono::milliseconds kAfterRankZero{5000};

volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_interrupt(int) { interrupted = 1; }

// One output stream of one rank, forwarded line by line.
struct Stream {
  int fd = -1;
  int target = 1;  // our fd it goes to
  std::string pending;
};

struct Rank {
  pid_t pid = -1;
  Stream out, err;
  bool running = true;
  bool stopped = false;  // by SIGSTOP or the like: it says nothing and cannot end on its own
  int status = 0;
};

// The first write to our stdout or stderr that failed (a full disk, /dev/full, a closed pipe): the job's
// output is lost, so the launch fails (exit 2) naming it, whatever the ranks said.
std::string lost_output;

std::string fd_name(int fd) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char target[4096];
  const ssize_t n = ::readlink(link, target, sizeof target - 1);
  const std::string std_name = fd == 1 ? "stdout" : fd == 2 ? "stderr" : "fd " + std::to_string(fd);
  if (n <= 0) return std_name;
  return std_name + " (" + std::string(target, static_cast<std::size_t>(n)) + ")";
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (lost_output.empty()) {
        lost_output = "cannot write to " + fd_name(fd) + ": " + (n < 0 ? std::strerror(errno) : "nothing written");
      }
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

// Forwards what `s` has to say; false at end of stream.
bool pump(Stream& s, const std::string& prefix) {
  char buf[65536];
  const ssize_t n = ::read(s.fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n > 0) s.pending.append(buf, static_cast<std::size_t>(n));
  std::size_t start = 0, nl;
  std::string lines;
  while ((nl = s.pending.find('\n', start)) != std::string::npos) {
    lines += prefix + s.pending.substr(start, nl - start + 1);
    start = nl + 1;
  }
  s.pending.erase(0, start);
  if (n <= 0) {  // end of stream: the last, unterminated line too
    if (!s.pending.empty()) lines += prefix + s.pending + "\n";
    s.pending.clear();
  }
  if (!lines.empty()) write_all(s.target, lines);
  if (n <= 0) {
    ::close(s.fd);
    s.fd = -1;
    return false;
  }
  return true;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                  strsignal(WTERMSIG(status)) + ")";
  return "ended with status " + std::to_string(status);
}

bool failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

bool start_rank(const LaunchPlan& plan, std::int64_t k, std::uint16_t port, const std::string& job_id, Rank& rank) {
  const pid_t launcher = ::getpid();
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    write_all(2, std::string("accel-sim: launch: pipe: ") + std::strerror(errno) + "\n");
    return false;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    write_all(2, std::string("accel-sim: launch: fork: ") + std::strerror(errno) + "\n");
    return false;
  }
  if (pid == 0) {
    // A rank must not outlive its launcher (killed with SIGKILL, it cannot stop them itself); and if the
    // launcher died before this line, the signal will never come.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != launcher) ::_exit(kJobFailed);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    const std::string world = std::to_string(plan.nproc), rank_text = std::to_string(k);
    ::setenv("RANK", rank_text.c_str(), 1);
    ::setenv("LOCAL_RANK", rank_text.c_str(), 1);
    ::setenv("WORLD_SIZE", world.c_str(), 1);
    ::setenv("LOCAL_WORLD_SIZE", world.c_str(), 1);
    ::setenv("MASTER_ADDR", plan.master_addr.c_str(), 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    ::setenv("ACCEL_SIM_JOB_ID", job_id.c_str(), 1);
    std::vector<char*> argv{const_cast<char*>(plan.program.c_str())};
    for (const std::string& a : plan.args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(plan.program.c_str(), argv.data());
    const std::string msg = "cannot start " + plan.program + ": " + std::strerror(errno) + "\n";
    write_all(2, msg);
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  rank.pid = pid;
  rank.out = {out[0], 1, {}};
  rank.err = {err[0], 2, {}};
  return true;
}

}  // namespace

std::uint16_t free_port(const std::string& address) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("launch: socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (::inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    ::close(fd);
    throw std::runtime_error("launch: " + address + " is not an IPv4 address");
  }
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("launch: no free port on " + address + ": " + why);
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

int launch(const LaunchPlan& plan) {
  std::uint16_t port = 0;
  try {
    port = free_port(plan.master_addr);
  } catch (const std::exception& e) {
    write_all(2, std::string("accel-sim: ") + e.what() + "\n");
    return 2;
  }
  struct sigaction sa{};
  sa.sa_handler = on_interrupt;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);

  // Unique enough per launch on one host: a second job that lands on this port is refused by the ranks.
  const std::string job_id = "launch-" + std::to_string(::getpid()) + "-" +
                             std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  std::vector<Rank> ranks(static_cast<std::size_t>(plan.nproc));
  for (std::int64_t k = 0; k < plan.nproc; ++k) {
    if (!start_rank(plan, k, port, job_id, ranks[static_cast<std::size_t>(k)])) {
      // Out of processes or descriptors: stop the ranks already started, they would wait for this one.
      for (std::int64_t j = 0; j < k; ++j) ::kill(ranks[static_cast<std::size_t>(j)].pid, SIGKILL);
      for (std::int64_t j = 0; j < k; ++j) ::waitpid(ranks[static_cast<std::size_t>(j)].pid, nullptr, 0);
      return 2;
    }
  }

  std::optional<Clock::time_point> terminate_at, kill_at;
  bool any_running = true, any_open = true;
  while (any_running || any_open) {
    std::vector<pollfd> fds;
    std::vector<Stream*> streams;
    std::vector<std::string> prefixes;
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      for (Stream* s : {&ranks[k].out, &ranks[k].err}) {
        if (s->fd < 0) continue;
        fds.push_back({s->fd, POLLIN, 0});
        streams.push_back(s);
        // Rank 0's stdout is the trace (or, with --out, the verdict) as it wrote it: a tool can read it.
        prefixes.push_back(k == 0 && s == &ranks[k].out ? "" : "[rank " + std::to_string(k) + "] ");
      }
    }
    if (!fds.empty()) {
      ::poll(fds.data(), fds.size(), 100);
    } else {
      ::usleep(20000);
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) pump(*streams[i], prefixes[i]);
    }

    const auto now = Clock::now();
    any_running = any_open = false;
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      Rank& r = ranks[k];
      int status = 0;
      // WUNTRACED/WCONTINUED: a stopped rank is told apart from one that is still working.
      while (r.running && ::waitpid(r.pid, &status, WNOHANG | WUNTRACED | WCONTINUED) == r.pid) {
        if (WIFSTOPPED(status)) {
          if (!r.stopped) {
            write_all(2, "[launch] rank " + std::to_string(k) + " was stopped by signal " +
                             std::to_string(WSTOPSIG(status)) + " (" + strsignal(WSTOPSIG(status)) + ")\n");
          }
          r.stopped = true;
          continue;
        }
        if (WIFCONTINUED(status)) {
          r.stopped = false;
          continue;
        }
        r.status = status;
        r.running = false;
        r.stopped = false;
        if (failed(r.status)) {
          write_all(2, "[launch] rank " + std::to_string(k) + " " + describe_status(r.status) + "\n");
          if (!terminate_at) {
            // The others get to find out and say who failed (within their own timeout) before we stop them.
            terminate_at = now + plan.grace;
          }
        }
      }
      any_running = any_running || r.running;
      any_open = any_open || r.out.fd >= 0 || r.err.fd >= 0;
    }
    if (interrupted && !kill_at) terminate_at = now;
    if (any_running && terminate_at && !kill_at && now < *terminate_at) {
      // Waiting for the others to name the failed rank is pointless when nobody is left who could: every
      // rank still running is stopped (they name it, then exit, within a third of their timeout), or rank 0,
      // whose store every rank talks through, has ended (the others find that out at once).
      bool all_stopped = true;
      for (const Rank& r : ranks) all_stopped = all_stopped && (!r.running || r.stopped);
      if (all_stopped) {
        terminate_at = now;
      } else if (!ranks[0].running) {
        terminate_at = std::min(*terminate_at, now + kAfterRankZero);
      }
    }
    if (any_running && terminate_at && now >= *terminate_at && !kill_at) {
      std::string which;
      for (std::size_t k = 0; k < ranks.size(); ++k) {
        if (!ranks[k].running) continue;
        which += (which.empty() ? "" : ", ") + std::to_string(k) + (ranks[k].stopped ? " (stopped)" : "");
      }
      write_all(2, "[launch] stopping the remaining ranks: " + which + "\n");
      for (Rank& r : ranks) {
        if (!r.running) continue;
        ::kill(r.pid, SIGTERM);
        ::kill(r.pid, SIGCONT);  // a stopped rank acts on SIGTERM only once it runs again
      }
      kill_at = now + std::chrono::seconds(3);
    }
    if (any_running && kill_at && now >= *kill_at) {
      for (Rank& r : ranks) if (r.running) ::kill(r.pid, SIGKILL);
    }
  }

  if (!lost_output.empty()) {
    // Said on stderr when it is stdout that failed (and tried anyway when it is stderr).
    const std::string message = "accel-sim: launch: " + lost_output + "; the job's output is lost\n";
    if (::write(2, message.data(), message.size()) < 0) {
      // nowhere left to say it: the exit code does
    }
    return kBadOutput;
  }
  const int rank0 = ranks[0].status;
  if (WIFEXITED(rank0) && WEXITSTATUS(rank0) != 0) return WEXITSTATUS(rank0);
  for (const Rank& r : ranks) if (failed(r.status)) return kJobFailed;
  return 0;
}

}  // namespace accel::cli

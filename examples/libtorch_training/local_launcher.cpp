#include "local_launcher.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>
#include <algorithm>

namespace {

// A port the kernel says is free now; rank 0 binds it a moment later (the same race torchrun accepts).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    throw std::runtime_error("cannot find a free port on 127.0.0.1");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace

int launch_local_ranks(int nproc, char** argv) {
  const std::string port = std::to_string(free_port());
  std::vector<pid_t> children;
  for (int rank = 0; rank < nproc; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork() failed");
    if (pid == 0) {
      setenv("RANK", std::to_string(rank).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(nproc).c_str(), 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", port.c_str(), 1);
      execv("/proc/self/exe", argv);
      std::perror("execv");
      _exit(127);
    }
    children.push_back(pid);
  }
  int failed = 0;
  while (!children.empty()) {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    std::erase(children, pid);
    if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) && failed++ == 0) {
      // A rank that is gone leaves the others blocked in a collective: stop them rather than wait for Gloo's
      // timeout. Only children not yet reaped are signalled.
      for (const pid_t other : children) kill(other, SIGTERM);
    }
  }
  return failed == 0 ? 0 : 1;
}

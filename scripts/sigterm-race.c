// How early a SIGTERM can reach nqueens and be handled (issue 30, item 11): forks, execs the
// command given, sends SIGTERM after DELAY_US microseconds, and counts how the child ended
// (exit 143 with nqueens' "interrupted" handling, or killed by the signal), split by whether the
// child had passed exec when the signal was sent (a CLOEXEC pipe's write end closes at exec).
// With BLOCKED=1 in the environment the parent holds SIGTERM blocked across the fork, as a
// launcher can: the child inherits the mask through exec and nqueens unblocks it once its
// handler is installed.
//
//   gcc -O2 -o /tmp/sigterm-race scripts/sigterm-race.c
//   /tmp/sigterm-race DELAY_US RUNS target/release/nqueens count 15
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static void spin_us(long us) { struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a); do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us); }
int main(int argc, char **argv) {
  long delay = atol(argv[1]); int runs = atoi(argv[2]);
  int pre_killed = 0, pre_handled = 0, post_killed = 0, post_handled = 0, other = 0;
  int blocked = getenv("BLOCKED") && atoi(getenv("BLOCKED")) == 1;
  for (int i = 0; i < runs; i++) {
    int p[2]; if (pipe2(p, O_CLOEXEC)) return 1;
    sigset_t s, old; sigemptyset(&s); sigaddset(&s, SIGTERM);
    if (blocked) sigprocmask(SIG_BLOCK, &s, &old);
    pid_t c = fork();
    if (c == 0) { close(p[0]); int fd = open("/dev/null", O_WRONLY); dup2(fd, 1); dup2(fd, 2);
      execv(argv[3], argv + 3); _exit(127); }
    if (blocked) sigprocmask(SIG_SETMASK, &old, 0);
    close(p[1]);
    spin_us(delay);
    fcntl(p[0], F_SETFL, O_NONBLOCK); char b; ssize_t r = read(p[0], &b, 1);
    int execd = (r == 0);  // EOF: exec closed the write end
    kill(c, SIGTERM);
    int st; waitpid(c, &st, 0); close(p[0]);
    int killed = WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM;
    int handled = WIFEXITED(st) && WEXITSTATUS(st) == 143;
    if (execd) { if (killed) post_killed++; else if (handled) post_handled++; else other++; }
    else { if (killed) pre_killed++; else if (handled) pre_handled++; else other++; }
  }
  printf("delay %ld us: exec'd before the signal: %d handled, %d killed; not yet (or racing): %d handled, %d killed; other %d\n",
         delay, post_handled, post_killed, pre_handled, pre_killed, other);
  return 0;
}

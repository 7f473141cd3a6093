/*
 * clockshift: run a program with its wall clock (CLOCK_REALTIME) shifted, for tests.
 *
 *   clockshift [-v] <offset_seconds> -- <program> [args...]
 *
 * Go programs (etcd) read the clock through the vDSO, where LD_PRELOAD tricks (libfaketime) cannot
 * reach. So:
 *  1. clockshift forks a tracer child, which PTRACE_SEIZEs clockshift itself.
 *  2. clockshift installs a seccomp filter that returns SECCOMP_RET_TRACE for clock_gettime with a
 *     wall-clock id (REALTIME, REALTIME_COARSE, REALTIME_ALARM, TAI), gettimeofday and time; every
 *     other syscall, CLOCK_MONOTONIC included, runs untrapped. Then it execs the program IN PLACE:
 *     the program keeps clockshift's PID, so whoever started it signals and waits for it directly.
 *  3. At the exec stop the tracer rewrites the program's AT_SYSINFO_EHDR auxv entry on its initial
 *     stack to AT_IGNORE/0, so the Go runtime (and glibc) find no vDSO and make real syscalls.
 *  4. At each seccomp stop the tracer emulates the call: it reads the clock itself, adds the offset,
 *     writes the result into the tracee's memory and skips the syscall (orig_rax = -1). One stop per
 *     call instead of two (entry + exit).
 * Threads, forks and execs are followed (PTRACE_O_TRACECLONE/FORK/VFORK/EXEC). Signals are passed on;
 * group-stops (SIGSTOP) are kept with PTRACE_LISTEN, so a SIGSTOPped program stays stopped.
 * The tracer dies with the program (PR_SET_PDEATHSIG) and the program dies with the tracer
 * (PTRACE_O_EXITKILL), so the program's main thread must live as long as the program (Go's
 * does). `kill -USR1 <tracer>` prints how many clock reads were shifted so far.
 * A traced program cannot be traced again: strace -p (the lab's slowDisk) fails on it.
 *
 * x86_64 Linux only. Exit status 125 when the tracer cannot attach, 127 when exec fails.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if !defined(__x86_64__)
#error "clockshift supports x86_64 only"
#endif

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif
#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif

#define NSEC_PER_SEC 1000000000LL
/* Bounds for walking the tracee's initial stack: argv + envp words, auxv entries. */
#define MAX_STACK_WORDS (1 << 20)
#define MAX_AUXV_ENTRIES 512

static long long offset_ns;
static int verbose;
static volatile sig_atomic_t report_requested;
static unsigned long long shifted_calls;

static void on_usr1(int sig) {
  (void)sig;
  report_requested = 1;
}

static int parse_offset(const char *text, long long *out) {
  char *end = NULL;
  errno = 0;
  double seconds = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite(seconds) || fabs(seconds) > 1e9) return -1;
  *out = llround(seconds * (double)NSEC_PER_SEC);
  return 0;
}

static struct timespec shifted(struct timespec ts) {
  long long ns = (long long)ts.tv_nsec + offset_ns % NSEC_PER_SEC;
  ts.tv_sec += (time_t)(offset_ns / NSEC_PER_SEC);
  if (ns >= NSEC_PER_SEC) {
    ns -= NSEC_PER_SEC;
    ts.tv_sec += 1;
  } else if (ns < 0) {
    ns += NSEC_PER_SEC;
    ts.tv_sec -= 1;
  }
  ts.tv_nsec = (long)ns;
  return ts;
}

/* Writes whole words into the tracee; 0 on success, -1 if the address is bad. */
static int poke_words(pid_t tid, unsigned long long addr, const long *words, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (ptrace(PTRACE_POKEDATA, tid, (void *)(uintptr_t)(addr + 8 * i), (void *)words[i]) != 0) return -1;
  }
  return 0;
}

static int peek_word(pid_t tid, unsigned long long addr, long *out) {
  errno = 0;
  long v = ptrace(PTRACE_PEEKDATA, tid, (void *)(uintptr_t)addr, NULL);
  if (v == -1 && errno != 0) return -1;
  *out = v;
  return 0;
}

static void resume(pid_t tid, int sig) { ptrace(PTRACE_CONT, tid, NULL, (void *)(intptr_t)sig); }

/* A seccomp stop: do the clock call here, shifted, and skip the tracee's syscall. */
static void emulate(pid_t tid) {
  struct user_regs_struct r;
  if (ptrace(PTRACE_GETREGS, tid, NULL, &r) != 0) return;
  struct timespec ts;
  long long ret;
  switch ((long long)r.orig_rax) {
  case SYS_clock_gettime:
    if (clock_gettime((clockid_t)(int)r.rdi, &ts) != 0) {
      ret = -errno;
      break;
    }
    ts = shifted(ts);
    {
      long words[2] = {(long)ts.tv_sec, ts.tv_nsec};
      ret = poke_words(tid, r.rsi, words, 2) == 0 ? 0 : -EFAULT;
    }
    break;
  case SYS_gettimeofday:
    clock_gettime(CLOCK_REALTIME, &ts);
    ts = shifted(ts);
    ret = 0;
    if (r.rdi != 0) {
      long words[2] = {(long)ts.tv_sec, ts.tv_nsec / 1000};
      if (poke_words(tid, r.rdi, words, 2) != 0) ret = -EFAULT;
    }
    if (ret == 0 && r.rsi != 0) {
      long zero = 0; /* struct timezone {0, 0}: two ints in one word */
      if (poke_words(tid, r.rsi, &zero, 1) != 0) ret = -EFAULT;
    }
    break;
  case SYS_time:
    clock_gettime(CLOCK_REALTIME, &ts);
    ts = shifted(ts);
    ret = (long long)ts.tv_sec;
    if (r.rdi != 0) {
      long word = (long)ts.tv_sec;
      if (poke_words(tid, r.rdi, &word, 1) != 0) ret = -EFAULT;
    }
    break;
  default:
    return; /* not ours: let it run */
  }
  r.orig_rax = (unsigned long long)-1; /* skip the syscall; rax is its return value */
  r.rax = (unsigned long long)ret;
  if (ptrace(PTRACE_SETREGS, tid, NULL, &r) == 0) shifted_calls++;
}

/*
 * An exec stop: the new image's initial stack is argc, argv..., NULL, envp..., NULL, auxv pairs.
 * Turning AT_SYSINFO_EHDR into AT_IGNORE/0 hides the vDSO from the runtime that reads auxv.
 */
static void hide_vdso(pid_t tid) {
  struct user_regs_struct r;
  if (ptrace(PTRACE_GETREGS, tid, NULL, &r) != 0) return;
  unsigned long long addr = r.rsp;
  long argc;
  if (peek_word(tid, addr, &argc) != 0 || argc < 0 || argc > MAX_STACK_WORDS) goto fail;
  addr += 8ULL * (unsigned long long)(argc + 2); /* argc itself, argv[], its NULL */
  long word = 1;
  for (int i = 0; i < MAX_STACK_WORDS && word != 0; i++, addr += 8) {
    if (peek_word(tid, addr, &word) != 0) goto fail;
  }
  if (word != 0) goto fail;
  for (int i = 0; i < MAX_AUXV_ENTRIES; i++, addr += 16) {
    long type, value;
    if (peek_word(tid, addr, &type) != 0 || peek_word(tid, addr + 8, &value) != 0) goto fail;
    if (type == AT_NULL) break;
    if (type == AT_SYSINFO_EHDR) {
      long entry[2] = {AT_IGNORE, 0};
      if (poke_words(tid, addr, entry, 2) != 0) goto fail;
      if (verbose) fprintf(stderr, "clockshift: hid the vDSO (0x%lx) from pid %d\n", value, tid);
      return;
    }
  }
  if (verbose) fprintf(stderr, "clockshift: pid %d has no vDSO in its auxv\n", tid);
  return;
fail:
  fprintf(stderr, "clockshift: could not read the auxv of pid %d; its clock may not be shifted\n", tid);
}

static int is_group_stop_signal(int sig) {
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void report(void) {
  report_requested = 0;
  fprintf(stderr, "clockshift: %llu clock reads shifted by %.3f s\n", shifted_calls,
          (double)offset_ns / (double)NSEC_PER_SEC);
}

static int run_tracer(pid_t leader, int go_fd, int ack_fd) {
  /* Die with the program; the program dies with us (EXITKILL). Ignore terminal signals meant for it. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != leader) _exit(1);
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1; /* no SA_RESTART: waitpid returns EINTR and we report */
  sigaction(SIGUSR1, &sa, NULL);

  char c;
  if (read(go_fd, &c, 1) != 1) _exit(1);
  long options = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                 PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
  if (ptrace(PTRACE_SEIZE, leader, NULL, (void *)options) != 0) {
    fprintf(stderr, "clockshift: PTRACE_SEIZE of pid %d failed: %s\n", leader, strerror(errno));
    (void)!write(ack_fd, "n", 1);
    _exit(1);
  }
  if (write(ack_fd, "k", 1) != 1) _exit(1);
  close(ack_fd);
  close(go_fd);

  for (;;) {
    if (report_requested) report();
    int status;
    pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == EINTR) continue;
      break; /* ECHILD: nothing left to trace */
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (tid == leader) break;
      continue;
    }
    if (!WIFSTOPPED(status)) continue;
    int sig = WSTOPSIG(status);
    int event = (unsigned)status >> 16;
    switch (event) {
    case PTRACE_EVENT_SECCOMP:
      emulate(tid);
      resume(tid, 0);
      break;
    case PTRACE_EVENT_EXEC:
      hide_vdso(tid);
      resume(tid, 0);
      break;
    case PTRACE_EVENT_STOP:
      /* Group-stop: keep it stopped until SIGCONT. Otherwise the first stop of a new thread. */
      if (is_group_stop_signal(sig))
        ptrace(PTRACE_LISTEN, tid, NULL, NULL);
      else
        resume(tid, 0);
      break;
    case 0:
      resume(tid, sig); /* signal-delivery-stop: pass the signal on */
      break;
    default:
      resume(tid, 0); /* clone, fork, vfork events */
      break;
    }
  }
  return 0;
}

static int install_filter(void) {
#define TO(target, at) ((target) - (at) - 1)
  enum { ALLOW = 11, TRACE = 12 };
  struct sock_filter filter[] = {
      /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, TO(ALLOW, 1)),
      /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettimeofday, TO(TRACE, 3), 0),
      /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_time, TO(TRACE, 4), 0),
      /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_gettime, 0, TO(ALLOW, 5)),
      /* 6: clockid_t is an int: the low word of args[0] (little-endian) */
      /* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_REALTIME, TO(TRACE, 7), 0),
      /* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_REALTIME_COARSE, TO(TRACE, 8), 0),
      /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_REALTIME_ALARM, TO(TRACE, 9), 0),
      /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_TAI, TO(TRACE, 10), TO(ALLOW, 10)),
      /* 11 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 12 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
  };
#undef TO
  struct sock_fprog prog = {.len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

static void usage(void) {
  fprintf(stderr, "usage: clockshift [-v] <offset_seconds> -- <program> [args...]\n");
  exit(2);
}

int main(int argc, char **argv) {
  int i = 1;
  if (i < argc && strcmp(argv[i], "-v") == 0) {
    verbose = 1;
    i++;
  }
  if (argc - i < 3 || strcmp(argv[i + 1], "--") != 0) usage();
  if (parse_offset(argv[i], &offset_ns) != 0) {
    fprintf(stderr, "clockshift: bad offset %s (seconds, e.g. 8, -8 or 2.5)\n", argv[i]);
    return 2;
  }
  char **program = argv + i + 2;

  int go[2], ack[2];
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(ack, O_CLOEXEC) != 0) {
    perror("clockshift: pipe");
    return 125;
  }
  pid_t leader = getpid();
  pid_t tracer = fork();
  if (tracer < 0) {
    perror("clockshift: fork");
    return 125;
  }
  if (tracer == 0) {
    close(go[1]);
    close(ack[0]);
    _exit(run_tracer(leader, go[0], ack[1]));
  }
  close(go[0]);
  close(ack[1]);
  /* Yama ptrace_scope=1 lets only ancestors trace; allow our child. EINVAL without Yama is fine. */
  prctl(PR_SET_PTRACER, (unsigned long)tracer, 0, 0, 0);
  char answer = 0;
  if (write(go[1], "g", 1) != 1 || read(ack[0], &answer, 1) != 1 || answer != 'k') {
    fprintf(stderr, "clockshift: the tracer could not attach; not running %s\n", program[0]);
    return 125;
  }
  close(go[1]);
  close(ack[0]);
  if (install_filter() != 0) {
    perror("clockshift: seccomp filter");
    return 125;
  }
  execvp(program[0], program);
  fprintf(stderr, "clockshift: cannot run %s: %s\n", program[0], strerror(errno));
  return 127;
}

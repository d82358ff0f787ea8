/*
 * oceancode-sandbox-exec: the sandbox's exec helper, the one program that
 * runs inside bubblewrap between bubblewrap and every confined command.
 *
 * It is C, not Go, for one reason: it runs once per sandboxed command, and
 * a Go program's runtime start-up (threads, heap, scheduler) costs about a
 * millisecond before main even runs -- half of what the whole sandbox may
 * cost (docs/benchmarks.md). This program does no policy: package
 * agent/sandbox computes everything (which Landlock rights, on which
 * paths, which limits) and hands it over as numbers on the command line;
 * bubblewrap loads the seccomp filter (built by agent/sandbox/helper) with
 * --seccomp before it execs this program. It holds no capability:
 * bubblewrap made every mount and dropped every capability (--cap-drop ALL,
 * no --cap-add) before it execs this program, which needs none and makes
 * no mount (agent/sandbox TestHelperHoldsNoCapability). What is left here
 * is applying:
 *
 *   1. lower the resource limits (soft and hard; a lower one is kept),
 *   2. set no_new_privs,
 *   3. mark every descriptor above 2 close-on-exec,
 *   4. find the command on PATH (as Go's exec.LookPath: no relative result),
 *   5. build the Landlock ruleset from the given handled rights and rules
 *      (a missing path is skipped, like go-landlock's IgnoreIfMissing) and
 *      enforce it on itself,
 *   6. exec the command.
 *
 * Any failure before the exec is fatal: the command never runs less
 * confined than asked. Exit status, as the Go helper's: 127 when the
 * command is not found, 126 when it could not be confined or executed.
 *
 * With --supervise it is instead the supervisor of a sandbox-off command
 * (agent/sandbox.Supervised; the Go helper's supervise_linux.go is its
 * twin and its specification): outside any sandbox, unconfined, a child
 * subreaper that runs the command as its child and ends the command's
 * whole process tree (SIGKILL to every descendant, found from /proc by
 * parent links, until none is left to reap) when the command exits, on
 * SIGTERM/SIGINT/SIGHUP, or when the agent's lifeline pipe reads end of
 * file (the agent is gone, SIGKILL included). It exits with the command's
 * status, re-raising the command's signal. It is here, in C, because every
 * bash call of a sandbox-off session starts one: the Go supervisor's
 * runtime start-up was most of a call's own cost (docs/benchmarks.md).
 *
 * Arguments (agent/sandbox/helper.Spec.ExecArgs writes them, the Go tests
 * in agent/sandbox run both helpers over the same cases):
 *
 *   --landlock FS SCOPED   handled file-system rights and IPC scopes
 *   --rule ACCESS PATH     allow ACCESS beneath PATH (repeatable)
 *   --nproc N --as N --fsize N --nofile N
 *   --supervise --lifeline FD   the supervisor (no other argument with it)
 *   -- COMMAND [ARG...]
 *
 * Numbers are decimal. Build: cc -O2 -static (see the Makefile).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The Landlock and close_range system call numbers are the same on every
 * architecture (the common table); Debian 12's headers predate some. */
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#define CLOSE_RANGE_CLOEXEC_ (1U << 2)
#define LANDLOCK_RULE_PATH_BENEATH_ 1

struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#define MAX_RULES 256

struct rule {
	uint64_t access;
	const char *path;
};

static const char *prog = "oceancode-sandbox-exec";

static void die(int code, const char *fmt, const char *arg, int err)
{
	fprintf(stderr, "%s: sandbox: ", prog);
	fprintf(stderr, fmt, arg);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(code);
}

static uint64_t number(const char *flag, const char *s)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		die(126, "helper: %s needs a decimal number", flag, 0);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		die(126, "helper: %s needs a decimal number", flag, 0);
	return (uint64_t)v;
}

static void set_limit(int res, const char *name, uint64_t v)
{
	struct rlimit cur, lim;

	if (v == 0)
		return;
	if (getrlimit(res, &cur) != 0)
		die(126, "read %s limit", name, errno);
	if (cur.rlim_max != RLIM_INFINITY && cur.rlim_max < v)
		v = cur.rlim_max;
	lim.rlim_cur = lim.rlim_max = (rlim_t)v;
	if (setrlimit(res, &lim) != 0)
		die(126, "set %s limit", name, errno);
}

/* cloexec_above_2 marks every descriptor above 2 close-on-exec:
 * close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11), else one by one
 * from /proc/self/fd. It fails closed. */
static void cloexec_above_2(void)
{
	DIR *d;
	struct dirent *e;

	if (syscall(__NR_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC_) == 0)
		return;
	d = opendir("/proc/self/fd");
	if (!d)
		die(126, "close inherited descriptors%s", "", errno);
	while ((e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || e->d_name[0] == '\0' || fd < 3 || fd == dirfd(d))
			continue;
		if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0 && errno != EBADF)
			die(126, "close inherited descriptor %s", e->d_name, errno);
	}
	closedir(d);
}

static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
		return 0;
	return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
}

/* look_path is exec.LookPath: a name with a slash is used as it is; else
 * the first executable in an absolute PATH entry (a relative entry, which
 * Go refuses as ErrDot, is skipped). */
static const char *look_path(const char *name, char *buf, size_t n)
{
	const char *path, *p;

	if (strchr(name, '/'))
		return executable(name) ? name : NULL;
	path = getenv("PATH");
	if (!path)
		return NULL;
	for (p = path;;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > 0 && p[0] == '/' && len + 1 + strlen(name) < n) {
			memcpy(buf, p, len);
			buf[len] = '/';
			strcpy(buf + len + 1, name);
			if (executable(buf))
				return buf;
		}
		if (!end)
			return NULL;
		p = end + 1;
	}
}

static void apply_landlock(uint64_t fs, uint64_t scoped, const struct rule *rules, int n)
{
	struct ruleset_attr attr = {.handled_access_fs = fs, .scoped = scoped};
	int rfd, i;

	rfd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0U);
	if (rfd < 0)
		die(126, "build landlock ruleset%s", "", errno);
	for (i = 0; i < n; i++) {
		struct path_beneath_attr pb;
		int fd = open(rules[i].path, O_PATH | O_CLOEXEC);

		if (fd < 0) {
			if (errno == ENOENT)
				continue; /* IgnoreIfMissing */
			die(126, "build landlock ruleset: open %s", rules[i].path, errno);
		}
		pb.allowed_access = rules[i].access;
		pb.parent_fd = fd;
		if (syscall(__NR_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH_, &pb, 0U) != 0)
			die(126, "build landlock ruleset: add rule for %s", rules[i].path, errno);
		close(fd);
	}
	if (syscall(__NR_landlock_restrict_self, rfd, 0U) != 0)
		die(126, "enforce landlock ruleset%s", "", errno);
	close(rfd);
}


/* ---- the supervisor (--supervise) ---- */

/* parent_of reads the parent pid from /proc/PID/stat (after the last ')',
 * the state, then the parent); -1 when the process is gone. */
static long parent_of(long pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || strlen(p) < 5)
		return -1;
	return strtol(p + 4, NULL, 10); /* ") S PPID" */
}

/* kill_descendants SIGKILLs every process below this one: the processes
 * whose parent chain in /proc reaches it. Passes repeat until one adds
 * nobody (a child listed after its parent's parent). The table grows with
 * the machine's process count: a fixed size would miss, on every pass, the
 * processes listed after it (a fork bomb's children among them). */
struct proc {
	long pid, parent;
	char below;
};

static void kill_descendants(void)
{
	static struct proc *ps;
	static size_t cap;
	long self = (long)getpid();
	size_t n = 0, i, j;
	int changed = 1;
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || e->d_name[0] == '\0' || pid == self)
			continue;
		if (n == cap) {
			size_t c = cap ? 2 * cap : 1024;
			struct proc *grown = realloc(ps, c * sizeof *ps);

			if (!grown)
				break; /* kill what is listed; end_tree's next pass comes back */
			ps = grown;
			cap = c;
		}
		ps[n].pid = pid;
		ps[n].parent = parent_of(pid);
		ps[n].below = ps[n].parent == self;
		n++;
	}
	closedir(d);
	while (changed) {
		changed = 0;
		for (i = 0; i < n; i++) {
			if (ps[i].below)
				continue;
			for (j = 0; j < n; j++)
				if (ps[j].below && ps[j].pid == ps[i].parent) {
					ps[i].below = 1;
					changed = 1;
					break;
				}
		}
	}
	for (i = 0; i < n; i++)
		if (ps[i].below)
			kill((pid_t)ps[i].pid, SIGKILL);
}

/* end_tree kills and reaps every descendant until no child is left (an
 * orphan below a subreaper is re-parented to it, so no child means no
 * descendant). A command that left nothing behind costs one waitpid. */
static void end_tree(int sfd)
{
	for (;;) {
		struct signalfd_siginfo si;
		struct pollfd pf = {.fd = sfd, .events = POLLIN};
		pid_t p;

		while ((p = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (p < 0 && errno == ECHILD)
			return;
		kill_descendants();
		if (poll(&pf, 1, 2) > 0)
			while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
				;
	}
}

/* start runs the command as a child with the signal mask and dispositions
 * the supervisor found; an exec failure comes back through a close-on-exec
 * pipe, so it is reported (126), not mistaken for the command's status. */
static pid_t start(const char *path, char **cmd, const sigset_t *old)
{
	int fds[2], err = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		die(126, "sandbox supervisor: pipe%s", "", errno);
	pid = fork();
	if (pid < 0)
		die(126, "sandbox supervisor: start %s", cmd[0], errno);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, old, NULL);
		execv(path, cmd);
		err = errno;
		if (write(fds[1], &err, sizeof err) < 0)
			_exit(126);
		_exit(126);
	}
	close(fds[1]);
	if (read(fds[0], &err, sizeof err) == (ssize_t)sizeof err) {
		waitpid(pid, NULL, 0);
		die(126, "sandbox supervisor: start %s", cmd[0], err);
	}
	close(fds[0]);
	return pid;
}

/* exit_as ends the supervisor with the command's status: its exit code,
 * or its signal re-raised (128+signal if the signal does not end us). The
 * signals a Go runtime owns are reported by status only, as the Go
 * supervisor does (no core file of the supervisor). */
static void exit_as(int status)
{
	int sig;
	sigset_t one;

	if (!WIFSIGNALED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	switch (sig) {
	case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL:
	case SIGTRAP: case SIGQUIT: case SIGABRT: case SIGSYS:
		break;
	default:
		signal(sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
	}
	exit(128 + sig);
}

static void supervise(char **cmd, int lifeline)
{
	char buf[PATH_MAX];
	const char *path;
	sigset_t set, old;
	int sfd, status = 0, done = 0, killed = 0;
	pid_t pid;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		die(126, "sandbox supervisor: become a subreaper%s", "", errno);
	path = look_path(cmd[0], buf, sizeof buf);
	if (!path)
		die(127, "command not found: %s", cmd[0], 0);
	cloexec_above_2(); /* the command gets 0, 1 and 2 only, never the lifeline */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, &old) != 0)
		die(126, "sandbox supervisor: block signals%s", "", errno);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		die(126, "sandbox supervisor: signalfd%s", "", errno);
	pid = start(path, cmd, &old);
	while (!done && !killed) {
		struct pollfd pf[2] = {{.fd = sfd, .events = POLLIN}, {.fd = lifeline, .events = POLLIN}};
		struct signalfd_siginfo si;
		char b[64];
		pid_t p;
		int ws;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			killed = 1; /* cannot watch: fail closed */
			break;
		}
		if (pf[1].revents) {
			ssize_t n = read(lifeline, b, sizeof b);

			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				killed = 1; /* the agent is gone */
		}
		while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
			if (si.ssi_signo != SIGCHLD)
				killed = 1;
		while ((p = waitpid(-1, &ws, WNOHANG)) > 0)
			if (p == pid) {
				status = ws;
				done = 1;
			}
	}
	end_tree(sfd);
	if (!done)
		exit(128 + SIGKILL);
	exit_as(status);
}

int main(int argc, char **argv)
{
	static struct rule rules[MAX_RULES];
	int nrules = 0, landlock = 0, i;
	uint64_t fs = 0, scoped = 0, nproc = 0, as = 0, fsize = 0, nofile = 0;
	int supervisor = 0, lifeline = -1, confine = 0;
	char **cmd = NULL;
	char buf[PATH_MAX];
	const char *path;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			if (i + 1 >= argc)
				die(126, "helper: no command%s", "", 0);
			cmd = argv + i + 1;
			break;
		}
		if (strcmp(a, "--supervise") == 0) {
			supervisor = 1;
			continue;
		}
		confine |= strcmp(a, "--lifeline") != 0;
		if (strcmp(a, "--landlock") == 0 && i + 2 < argc) {
			landlock = 1;
			fs = number(a, argv[i + 1]);
			scoped = number(a, argv[i + 2]);
			i += 2;
		} else if (strcmp(a, "--rule") == 0 && i + 2 < argc) {
			if (nrules == MAX_RULES)
				die(126, "helper: more than %s rules", "256", 0);
			rules[nrules].access = number(a, argv[i + 1]);
			rules[nrules].path = argv[i + 2];
			nrules++;
			i += 2;
		} else if (i + 1 >= argc) {
			die(126, "helper: %s needs a value", a, 0);
		} else if (strcmp(a, "--lifeline") == 0) {
			lifeline = (int)number(a, argv[++i]);
			if (lifeline < 3)
				die(126, "helper: --lifeline %s: not a descriptor above 2", argv[i], 0);
		} else if (strcmp(a, "--nproc") == 0) {
			nproc = number(a, argv[++i]);
		} else if (strcmp(a, "--as") == 0) {
			as = number(a, argv[++i]);
		} else if (strcmp(a, "--fsize") == 0) {
			fsize = number(a, argv[++i]);
		} else if (strcmp(a, "--nofile") == 0) {
			nofile = number(a, argv[++i]);
		} else {
			die(126, "helper: unknown argument %s", a, 0);
		}
	}
	if (!cmd)
		die(126, "helper: missing -- before the command%s", "", 0);
	if (nrules > 0 && !landlock)
		die(126, "helper: --rule without --landlock%s", "", 0);
	if (supervisor != (lifeline >= 0))
		die(126, "helper: --supervise and --lifeline go together%s", "", 0);
	if (supervisor && confine)
		die(126, "helper: --supervise confines nothing: no other argument with it%s", "", 0);
	if (supervisor)
		supervise(cmd, lifeline);

	set_limit(RLIMIT_NPROC, "processes", nproc);
	set_limit(RLIMIT_AS, "address space", as);
	set_limit(RLIMIT_FSIZE, "file size", fsize);
	set_limit(RLIMIT_NOFILE, "open files", nofile);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die(126, "set no_new_privs%s", "", errno);
	cloexec_above_2();
	path = look_path(cmd[0], buf, sizeof buf);
	if (!path)
		die(127, "command not found: %s", cmd[0], 0);
	if (landlock)
		apply_landlock(fs, scoped, rules, nrules);
	execv(path, cmd);
	die(126, "exec %s", cmd[0], errno);
	return 126;
}

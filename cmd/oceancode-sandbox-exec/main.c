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
 * Arguments (agent/sandbox/helper.Spec.ExecArgs writes them, the Go tests
 * in agent/sandbox run both helpers over the same cases):
 *
 *   --landlock FS SCOPED   handled file-system rights and IPC scopes
 *   --rule ACCESS PATH     allow ACCESS beneath PATH (repeatable)
 *   --nproc N --as N --fsize N --nofile N
 *   -- COMMAND [ARG...]
 *
 * Numbers are decimal. Build: cc -O2 -static (see the Makefile).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

int main(int argc, char **argv)
{
	static struct rule rules[MAX_RULES];
	int nrules = 0, landlock = 0, i;
	uint64_t fs = 0, scoped = 0, nproc = 0, as = 0, fsize = 0, nofile = 0;
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

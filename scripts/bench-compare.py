#!/usr/bin/env python3
"""scripts/bench-compare.py REF [ROUNDS]: the whole-process figures of this
checkout against a reference commit, interleaved, with medians and ratios.

It builds REF in a temporary worktree and this checkout (same flags as make
build: CGO_ENABLED=0, -trimpath, -s -w), sets up one hermetic home per build
(a trusted project whose config points at a scripted loopback model,
internal/cmd/mockmodel), and runs, ROUNDS times (default 15) in a new random
order each round:

  version   oceancode --version
  inspect   oceancode inspect --json
  turn      oceancode run --auto: one turn with one bash call
  ten       oceancode run --auto: one turn with ten bash calls
  mcp       oceancode run --auto: one turn with one call to a stdio MCP
            server's echo tool (internal/cmd/mockmcp, the same server for
            both builds)
  pager     oceancode on a terminal (a pty): until the pager's first frame
            (its status line) is on the screen

Each run's wall time, CPU (user + sys of the whole process tree) and peak
RSS (that of the largest process; pager: not measured) are measured from
outside: the commands run under internal/cmd/procstat, a 2 MiB process, so
the peak is the command's own and not inherited from this interpreter. The
table gives each build's medians and the median of the per-round ratios
now/REF, which holds when the machine's speed drifts; a figure REF cannot
run (a build older than the feature) prints "n/a". Binary sizes are printed
first. docs/benchmarks.md says how to read it. Needs git, go and python3;
writes only below a temporary directory, which it removes.
"""
import json, os, pty, random, resource, select, shutil, signal, statistics, subprocess, sys, tempfile, time

FIGURES = ("version", "inspect", "turn", "ten", "mcp", "pager")
TURNS = {"turn": 1, "ten": 10, "mcp": 0}  # bash calls in the scripted turn (mcp: one MCP call)


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def build(src, out, tools=False):
    """make build's binaries of src (those its tree has) into out; tools: the
    loopback model, the MCP server and procstat, from this checkout only."""
    env = dict(os.environ, CGO_ENABLED="0")
    os.makedirs(out, exist_ok=True)
    pkgs = ["./internal/cmd/mockmodel", "./internal/cmd/mockmcp", "./internal/cmd/procstat"] if tools else \
        [p for p in ("./cmd/oceancode", "./cmd/oceancode-model", "./cmd/oceancode-sandbox", "./cmd/oceancode-pager")
         if os.path.isdir(os.path.join(src, p))]
    subprocess.run(["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out + "/"] + pkgs, cwd=src, env=env, check=True)
    helper = os.path.join(src, "scripts/build-exec-helper.sh")
    if not tools and os.path.exists(helper):
        subprocess.run([helper, out + "/oceancode-sandbox-exec"], cwd=src, check=True, capture_output=True)


def script(path, calls):
    if calls:
        turn = {"tool_calls": [{"name": "bash", "input": {"command": "echo %d" % i}} for i in range(calls)]}
    else:
        turn = {"tool_calls": [{"name": "mcp__m__echo", "input": {"text": "hello"}}]}
    with open(path, "w") as f:
        json.dump({"loop": True, "turns": [turn, {"text": "done"}]}, f)


def mock(binary, path):
    p = subprocess.Popen([binary, "-script", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return p, p.stdout.readline().strip()


def machine(root, name, urls, tools):
    """A home and a project per build and figure; returns env and project dirs."""
    home = os.path.join(root, name, "home")
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/.config",
           "XDG_STATE_HOME": home + "/.local/state", "OPENAI_API_KEY": "k"}
    projects = {}
    for fig, url in urls.items():
        proj = os.path.join(root, name, fig)
        os.makedirs(proj + "/.oceancode")
        cfg = {"provider": {"mock": {"type": "openai", "base_url": url + "/v1"}}, "model": "mock/m"}
        if fig == "mcp":
            # the server notes each start in the marker: a build without MCP never starts it
            cfg["mcp"] = {"servers": {"m": {"command": tools + "/mockmcp", "env": {"OC_MCP_MARKER": proj + ".started"}}}}
            cfg["permission"] = {"mcp": {"m/*": "allow"}}
        with open(proj + "/.oceancode/oceancode.json", "w") as f:
            json.dump(cfg, f)
        repository(proj)
        projects[fig] = proj
    os.makedirs(home + "/.config", exist_ok=True)
    return env, projects


def repository(proj):
    """Make proj a git repository with a commit of a few files, as a user's is."""
    for i in range(20):
        os.makedirs(os.path.join(proj, "src", "p%d" % (i % 4)), exist_ok=True)
        with open(os.path.join(proj, "src", "p%d" % (i % 4), "f%d.go" % i), "w") as f:
            f.write("package p\n\nfunc F%d() int { return %d }\n" % (i, i))
    git = ["git", "-C", proj, "-c", "user.name=b", "-c", "user.email=b@example.com"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "src"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "fixture"], check=True)


def argv(bin_dir, fig):
    oc = bin_dir + "/oceancode"
    return {"version": [oc, "--version"], "inspect": [oc, "inspect", "--json"],
            "turn": [oc, "run", "--auto", "--format", "json", "say hello"],
            "ten": [oc, "run", "--auto", "--format", "json", "say hello ten times"],
            "mcp": [oc, "run", "--auto", "--format", "json", "echo through the MCP server"],
            "pager": [oc]}[fig]


def once(fig, cmd, cwd, env, tools):
    """One run under procstat: (wall ms, CPU ms of the tree, peak RSS MiB)."""
    if fig == "pager":
        return pager_once(cmd, cwd, env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([tools + "/procstat", "-n", "1", "-dir", cwd, "--"] + cmd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), r.stderr.decode()[-500:]))
    run = json.loads(r.stdout)[0]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return run["wall_nano"] / 1e6, cpu * 1000, run["max_rss_kib"] / 1024


FRAME = b"0 tokens"  # the status line of a fresh session (agent/pager BenchmarkFirstFrame)


def pager_once(cmd, cwd, env):
    """The pager on a pty: wall ms until its first frame, CPU ms; no RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execve(cmd[0], cmd, dict(env, TERM="xterm-256color", COLUMNS="120", LINES="40"))
    seen, wall = b"", None
    try:
        while wall is None:
            r, _, _ = select.select([fd], [], [], 30)
            if not r:
                raise RuntimeError("the pager drew no first frame in 30 s: %r" % seen[-300:])
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                raise RuntimeError("the pager ended before its first frame: %r" % seen[-300:])
            seen += chunk
            if FRAME in seen:
                wall = (time.perf_counter() - t) * 1000
    finally:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000, None


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, width=10):
    return ("%*.1f" % (width, x)) if x is not None else "%*s" % (width, "n/a")


def ratio(pairs, k):
    return median(b[k] / a[k] for a, b in pairs if a[k] and b[k] is not None)


def report(ref, rounds, builds, res):
    print("bench-compare: this checkout (now) against %s (ref), %d rounds, medians; ratio = median of now/ref per round"
          % (ref, rounds))
    for name, d in builds.items():
        print("  %s binaries: %s" % (name, ", ".join("%s %.1f MB" % (b, os.path.getsize(os.path.join(d, b)) / 1e6)
                                                   for b in sorted(os.listdir(d)))))
    cols = ("figure", "ref wall ms", "now wall ms", "ratio", "ref cpu ms", "now cpu ms", "ratio", "ref MiB", "now MiB", "ratio")
    print("%-8s" % cols[0] + "".join("%12s" % c for c in cols[1:]))
    for f in FIGURES:
        r, n = res[("ref", f)], res[("now", f)]
        if not r or not n:
            print("%-8s %s" % (f, "n/a: " + ("ref" if not r else "now") + " cannot run it"))
            continue
        pairs = list(zip(r, n))
        row = []
        for k in range(3):
            row += [median(x[k] for x in r), median(x[k] for x in n), ratio(pairs, k)]
        print("%-8s" % f + "".join(fmt(x, 12) if i % 3 != 2 or x is None else "%12.3f" % x for i, x in enumerate(row)))


def fixtures(root, builds, tools):
    """One loopback model per build and turn figure, one home and project per
    build; returns (envs, projects, model processes)."""
    mocks, envs, projects = [], {}, {}
    for name, bin_dir in builds.items():
        urls = {}
        for fig, calls in TURNS.items():
            path = os.path.join(root, "%s-%s.json" % (fig, name))
            script(path, calls)
            p, urls[fig] = mock(tools + "/mockmodel", path)
            mocks.append(p)
        env, projs = machine(root, name, urls, tools)
        projs["version"] = projs["inspect"] = projs["pager"] = projs["turn"]
        envs[name], projects[name] = env, projs
        for fig in TURNS:  # a build without workspace trust applies the config as it is
            subprocess.run([bin_dir + "/oceancode", "trust", "."], cwd=projs[fig], env=env, capture_output=True)
    return envs, projects, mocks


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: scripts/bench-compare.py REF [ROUNDS]")
    ref, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 15
    repo = sh("git", "rev-parse", "--show-toplevel").strip()
    root = tempfile.mkdtemp(prefix="oceancode-bench-compare.")
    wt = os.path.join(root, "ref-src")
    mocks = []
    try:
        sh("git", "-C", repo, "worktree", "add", "--detach", wt, ref)
        builds = {"ref": os.path.join(root, "ref-bin"), "now": os.path.join(root, "now-bin")}
        tools = os.path.join(root, "tools")
        build(wt, builds["ref"])
        build(repo, builds["now"])
        build(repo, tools, tools=True)
        envs, projects, mocks = fixtures(root, builds, tools)
        runs = {}
        for name in builds:  # warm-up, and which figures each build can run
            for fig in FIGURES:
                try:
                    once(fig, argv(builds[name], fig), projects[name][fig], envs[name], tools)
                    if fig == "mcp" and not os.path.exists(projects[name][fig] + ".started"):
                        raise RuntimeError("the MCP server was never started (no MCP support)")
                    runs[(name, fig)] = True
                except (RuntimeError, OSError) as e:
                    print("bench-compare: %s cannot run %s: %s" % (name, fig, str(e).splitlines()[0][:200]), file=sys.stderr)
                    if name == "now":
                        sys.exit("bench-compare: this checkout must run every figure")
        res = {(n, f): [] for n in builds for f in FIGURES}
        for _ in range(rounds):
            order = [k for k in res if runs.get(k)]
            random.shuffle(order)
            for n, f in order:
                res[(n, f)].append(once(f, argv(builds[n], f), projects[n][f], envs[n], tools))
        report(ref, rounds, builds, res)
    finally:
        for p in mocks:
            p.stdin.close()
            p.wait()
        subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", wt], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

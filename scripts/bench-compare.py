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

Each run's wall time and CPU (user + sys of the whole process tree) are
measured from outside (time.perf_counter and getrusage of the children); the
table gives each build's medians and the median of the per-round ratios
now/REF, which holds when the machine's speed drifts. docs/benchmarks.md says
how to read it. Needs git, go and python3; writes only below a temporary
directory, which it removes.
"""
import json, os, random, resource, shutil, statistics, subprocess, sys, tempfile, time

FIGURES = ("version", "inspect", "turn", "ten")


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def build(src, out):
    env = dict(os.environ, CGO_ENABLED="0")
    os.makedirs(out, exist_ok=True)
    for pkg in ("./cmd/oceancode", "./cmd/oceancode-model", "./internal/cmd/mockmodel"):
        subprocess.run(["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out + "/", pkg],
                       cwd=src, env=env, check=True)


def script(path, calls):
    turn = {"tool_calls": [{"name": "bash", "input": {"command": "echo %d" % i}} for i in range(calls)]}
    with open(path, "w") as f:
        json.dump({"loop": True, "turns": [turn, {"text": "done"}]}, f)


def mock(binary, path):
    p = subprocess.Popen([binary, "-script", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return p, p.stdout.readline().strip()


def machine(root, name, urls):
    """A home and a project per build and figure; returns env and project dirs."""
    home = os.path.join(root, name, "home")
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/.config",
           "XDG_STATE_HOME": home + "/.local/state", "OPENAI_API_KEY": "k"}
    projects = {}
    for fig, url in urls.items():
        proj = os.path.join(root, name, fig)
        os.makedirs(proj + "/.oceancode")
        with open(proj + "/.oceancode/oceancode.json", "w") as f:
            json.dump({"provider": {"mock": {"type": "openai", "base_url": url + "/v1"}}, "model": "mock/m"}, f)
        projects[fig] = proj
    os.makedirs(home + "/.config", exist_ok=True)
    return env, projects


def argv(bin_dir, fig):
    oc = bin_dir + "/oceancode"
    return {"version": [oc, "--version"], "inspect": [oc, "inspect", "--json"],
            "turn": [oc, "run", "--auto", "--format", "json", "say hello"],
            "ten": [oc, "run", "--auto", "--format", "json", "say hello ten times"]}[fig]


def once(cmd, cwd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("bench-compare: %s failed (exit %d): %s" % (" ".join(cmd), r.returncode, r.stderr.decode()[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000


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
        build(wt, builds["ref"])
        build(repo, builds["now"])
        urls = {}
        for fig, calls in (("turn", 1), ("ten", 10)):
            for name in builds:
                path = os.path.join(root, "%s-%s.json" % (fig, name))
                script(path, calls)
                p, url = mock(builds["now"] + "/mockmodel", path)
                mocks.append(p)
                urls[(fig, name)] = url
        envs, projects = {}, {}
        for name, bin_dir in builds.items():
            env, projs = machine(root, name, {f: urls[(f, name)] for f in ("turn", "ten")})
            projs["version"] = projs["inspect"] = projs["turn"]
            envs[name], projects[name] = env, projs
            for fig in ("turn", "ten"):  # a build without workspace trust applies the config as it is
                subprocess.run([bin_dir + "/oceancode", "trust", "."], cwd=projs[fig], env=env, capture_output=True)
        for name in builds:  # warm-up, and a check that every figure runs
            for fig in FIGURES:
                once(argv(builds[name], fig), projects[name][fig], envs[name])
        res = {(n, f): [] for n in builds for f in FIGURES}
        for _ in range(rounds):
            order = [(n, f) for n in builds for f in FIGURES]
            random.shuffle(order)
            for n, f in order:
                res[(n, f)].append(once(argv(builds[n], f), projects[n][f], envs[n]))
        print("bench-compare: this checkout (now) against %s (ref), %d rounds, medians" % (ref, rounds))
        print("%-8s %12s %12s %8s %12s %12s %8s" % ("figure", "ref wall ms", "now wall ms", "ratio", "ref cpu ms", "now cpu ms", "ratio"))
        for f in FIGURES:
            r, n = res[("ref", f)], res[("now", f)]
            wr = statistics.median(b[0] / a[0] for a, b in zip(r, n))
            cr = statistics.median(b[1] / a[1] for a, b in zip(r, n) if a[1] > 0)
            print("%-8s %12.1f %12.1f %8.3f %12.1f %12.1f %8.3f" % (
                f, statistics.median(x[0] for x in r), statistics.median(x[0] for x in n), wr,
                statistics.median(x[1] for x in r), statistics.median(x[1] for x in n), cr))
    finally:
        for p in mocks:
            p.stdin.close()
            p.wait()
        subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", wt], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

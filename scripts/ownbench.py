# scripts/ownbench.py ROUNDS RUNS WORKSPACE DIR... : interleaves, in a new random order every time, the minimal bwrap of
# issue 9 and, for each build DIR, `DIR/oceancode sandbox -- true` and `--mode danger-full-access`; prints per round
# the medians and own-cost/bwrap for each build. HOMEDIR names the (hermetic) home.
import os, random, statistics, subprocess, sys, time
rounds, runs, ws, dirs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
home = os.environ.get('HOMEDIR', '/work/pt/home')
env = {'PATH': os.environ['PATH'], 'HOME': home, 'XDG_CONFIG_HOME': home + '/.config', 'XDG_STATE_HOME': home + '/.local/state'}
minimal = ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', '--new-session', 'true']
cmds = {'bwrap': minimal}
for d in dirs:
    cmds[d + ':sb'] = [d + '/oceancode', 'sandbox', '--', 'true']
    cmds[d + ':full'] = [d + '/oceancode', 'sandbox', '--mode', 'danger-full-access', '--', 'true']
for k, c in cmds.items():
    r = subprocess.run(c, cwd=ws, env=env, capture_output=True)
    assert r.returncode == 0, (k, r.stderr)
for rnd in range(rounds):
    t = {k: [] for k in cmds}
    for i in range(runs):
        ks = list(cmds); random.shuffle(ks)
        for k in ks:
            s = time.perf_counter(); subprocess.run(cmds[k], cwd=ws, env=env); t[k].append(time.perf_counter() - s)
    med = {k: statistics.median(v) * 1000 for k, v in t.items()}
    line = 'round %d: bwrap %.2f ms' % (rnd, med['bwrap'])
    for d in dirs:
        own = med[d + ':sb'] - med[d + ':full']
        line += ' | %s: sb %.2f full %.2f own %.2f ratio %.2f' % (os.path.basename(d), med[d + ':sb'], med[d + ':full'], own, own / med['bwrap'])
    print(line, flush=True)

# scripts/helperbench.py ROUNDS RUNS DIR : interleaves a minimal bwrap (our namespaces, --cap-drop ALL,
# --disable-userns) running `true` directly, through DIR's C exec helper, and through DIR's Go helper (as the runner
# starts it: GOMAXPROCS=1, --no-gomaxprocs), each helper with the same Landlock ruleset and limits; prints the wall
# clock medians. The difference to the direct run is the helper's own cost (docs/benchmarks.md, "No capability in
# the sandbox"). Wall clock only: the helper runs in bubblewrap's PID namespace, outside the parent's RUSAGE_CHILDREN.
import os, statistics, subprocess, sys, time
rounds, runs, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
bw = ['bwrap', '--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session',
      '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--']
ll = ['--landlock', '65535', '3', '--rule', '13', '/', '--rule', '32767', '/tmp', '--rule', '65535', '/dev',
      '--nproc', '4096', '--nofile', '1024']
one = dict(os.environ, GOMAXPROCS='1')
cases = [('direct', bw + ['true'], None),
         ('C exec helper', bw + [os.path.join(d, 'oceancode-sandbox-exec')] + ll + ['--', 'true'], None),
         ('Go helper', bw + [os.path.join(d, 'oceancode-sandbox'), '__sandbox-exec'] + ll + ['--no-gomaxprocs', '--', 'true'], one)]
wall = {n: [] for n, _, _ in cases}
for _, a, e in cases:
    subprocess.run(a, check=True, env=e)
for r in range(rounds):
    for n, a, e in cases:
        for _ in range(runs):
            s = time.perf_counter()
            subprocess.run(a, check=True, env=e)
            wall[n].append(time.perf_counter() - s)
med = {n: statistics.median(v) * 1000 for n, v in wall.items()}
for n, _, _ in cases:
    print('%-15s %7.2f ms  (+%.2f ms over direct, %.2fx of it)' % (n, med[n], med[n] - med['direct'], (med[n] - med['direct']) / med['direct']))

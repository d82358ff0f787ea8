// Package shellguard classifies a bash command before it runs: safe
// (read-only), allow (a shell.allow rule), ask, deny (a shell.deny rule) or
// floor (a destructive shape no mode or rule reopens). It is pure: it parses
// and classifies, it never executes anything, and it reads no files or
// environment.
//
// # Pipeline
//
//  1. Parse the command with mvdan.cc/sh/v3/syntax (bash dialect). Input that
//     does not parse is never safe: the complete statements before the error
//     and the longest prefix that parses are still classified (bash runs
//     them), and the rest is scanned word by word for floor shapes.
//  2. Walk the syntax tree into segments, one per simple command: across
//     && || ; | & and newlines, subshells, groups, if/while/for/case bodies,
//     function bodies, command and process substitutions ($(…), `…`, <(…),
//     >(…)), here-documents and here-strings fed to a shell, and the scripts
//     of bash -c, eval, trap, alias, and every argument or option a
//     program runs as a command (runTable in runs.go: git grep -O, su -c,
//     ssh HOST CMD, watch, find -exec, git -c core.pager=, …).
//  3. Evaluate each word statically, exactly as bash does (static.go):
//     quotes and backslashes removed, $'…' decoded, brace expansion, ~ and
//     $HOME, variables assigned earlier in the command (X=/; rm -rf $X,
//     printf -v, read <<<), for-loop values, arrays, positional parameters
//     of functions, bash -c and set -- (args.go), ${X%pat} trimming, and
//     substitutions of echo, printf, which, pwd, dirname and literal
//     decoders ($(printf '\x72m'), $(echo … | base64 -d)). Functions the
//     command defines are walked again at each call with its arguments,
//     and aliases it defines are expanded. Anything else is "not literal"; for the floor an unknown
//     parameter is also tried unset or at its default (rm -rf ${X:-/}).
//     Expansions that run commands (${x@P}, arithmetic on unknown values,
//     subscripted names) make the statement ask (exec.go).
//  4. Peel wrappers: sudo, doas, env, nice, timeout, nohup, xargs, command,
//     exec, time, stdbuf, ionice, setsid, busybox, leading NAME=value; a
//     shell with -c is parsed recursively.
//  5. Classify each segment: the floor first, then shell.deny rules (matched
//     on the peeled command and on every wrapper layer), then the read-only
//     safe list (flag-aware) and Config.SafeListExtra, then shell.allow
//     rules, else ask.
//  6. Combine: the command's verdict is the worst segment's (a chaining
//     guard: git status && rm x asks, git log && rm -rf / is floor). Paths
//     outside the project and the Jev hold list are reported alongside.
//
// # Code layout
//
// One file family per job, each saying it under its package clause:
// parse.go (parsing, recovery), walk.go and call.go (the walk), words.go,
// args.go, envsplit.go, static.go and exec.go (word evaluation), peel.go
// and emit.go (wrappers, a segment's verdict), floor.go and floor_*.go
// (the floor's rules), opts.go and opttables*.go (option tables), safe.go,
// runs.go, rules.go, secretfiles.go, hold.go. Rules that are data are
// tables with their reasons; no function exceeds 80 lines
// (TestNoLongFunctions).
//
// See docs/shellguard.md for the safe list, the floor shapes, the code
// layout and the decisions behind them.
package shellguard

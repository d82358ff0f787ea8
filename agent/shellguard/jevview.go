package shellguard

// GitSubcommand returns the index in argv (a Segment's Argv, argv[0] being
// git) of git's subcommand, skipping git's own options and their values
// (-C dir, -c name=value, --git-dir dir, ...), or -1 when there is none.
// Jev's code-side bound reads it, so it sees the same subcommand the floor
// does.
func GitSubcommand(argv []string) int {
	ws := make([]word, len(argv))
	for i, a := range argv {
		ws[i] = word{val: a, text: a, lit: true, known: true}
	}
	return gitSubcommand(ws)
}

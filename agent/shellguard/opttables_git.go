package shellguard

// git's option tables (git 2.39). git's own options come before the
// subcommand and match exactly; the subcommands built on parse-options take
// unique prefixes and --no- negations; the revision and diff options
// (revision.c, diff.c) match exactly.

// gitRevSpec: revision walking, formatting and diff options shared by log,
// show, whatchanged, diff, diff-tree, diff-files, diff-index, rev-list,
// shortlog, blame and stash list/show.
const gitRevSpec = "" +
	// diff output
	"p,u,patch s,no-patch U? unified? W,function-context no-function-context raw patch-with-raw patch-with-stat numstat shortstat " +
	"X? dirstat? cumulative dirstat-by-file? check summary name-only name-status stat? stat-width= stat-name-width= " +
	"stat-graph-width= stat-count= compact-summary no-compact-summary binary full-index no-full-index color? no-color " +
	"ws-error-highlight= abbrev? no-abbrev src-prefix= dst-prefix= line-prefix= no-prefix default-prefix inter-hunk-context= " +
	"output-indicator-new= output-indicator-old= output-indicator-context= B? break-rewrites? M? find-renames? D " +
	"irreversible-delete C? find-copies? find-copies-harder no-find-copies-harder no-renames rename-empty no-rename-empty " +
	"follow no-follow minimal no-minimal w,ignore-all-space b,ignore-space-change ignore-space-at-eol ignore-cr-at-eol " +
	"ignore-blank-lines I= ignore-matching-lines= no-ignore-matching-lines indent-heuristic no-indent-heuristic patience " +
	"histogram diff-algorithm= anchored= word-diff? word-diff-regex= color-words? color-moved? no-color-moved color-moved-ws= " +
	"no-color-moved-ws relative? no-relative a,text no-text exit-code no-exit-code quiet no-quiet no-ext-diff no-textconv " +
	"ignore-submodules?!x submodule?!x ita-invisible-in-index ita-visible-in-index pickaxe-all pickaxe-regex S= G= O= rotate-to= " +
	"skip-to= find-object= diff-filter= R z l= " +
	"ext-diff!x textconv!x output=!w " +
	// diff's own
	"no-index cached staged merge-base base ours theirs c cc dd m diff-merges= no-diff-merges remerge-diff combined-all-paths " +
	"t r root no-commit-id always stdin v " +
	// commit limiting
	"n= max-count= skip= since= after= since-as-filter= until= before= max-age= min-age= author= committer= grep= grep-reflog= " +
	"all-match invert-grep i,regexp-ignore-case basic-regexp E,extended-regexp F,fixed-strings P,perl-regexp remove-empty merges " +
	"no-merges min-parents= max-parents= no-min-parents no-max-parents first-parent exclude-first-parent-only not all branches? " +
	"tags? remotes? glob= exclude= reflog alternate-refs!x single-worktree ignore-missing bisect cherry-mark cherry-pick left-only " +
	"right-only cherry g,walk-reflogs merge boundary simplify-by-decoration show-pulls full-history dense sparse simplify-merges " +
	"ancestry-path? date-order author-date-order topo-order reverse no-walk? do-walk " +
	// formatting
	"pretty? format? abbrev-commit no-abbrev-commit oneline encoding= expand-tabs? no-expand-tabs notes? no-notes show-notes? " +
	"standard-notes no-standard-notes show-signature relative-date date= parents children left-right graph show-linear-break? " +
	"L= decorate? no-decorate decorate-refs= decorate-refs-exclude= clear-decorations source use-mailmap mailmap no-mailmap " +
	"no-use-mailmap log-size full-diff count objects objects-edge unpacked header timestamp object-names no-object-names " +
	"in-commit-order disk-usage? bisect-vars bisect-all filter= missing= exclude-promisor-objects"

func gitSub(name string, style optStyle, spec string, whys map[string]string) *optTable {
	t := newTable("git "+name, style, spec, whys)
	gitTables[name] = t
	return t
}

// po adds a git subcommand table parsed with parse-options (gitPO).
func po(name, spec string, whys map[string]string) *optTable { return gitSub(name, gitPO, spec, whys) }

// poNum is gitPO with numeric options (-3, as git grep and git tag take).
var poNum = optStyle{abbrev: true, permute: true, gitNeg: true, endOpts: true, numeric: true}

// gitTables1 builds git's global options and its read-only subcommands.
func gitTables1() {
	gitRevTables()
	gitRefTables()
	gitQueryTables()
}

// gitRevTables: git's global options and the revision walkers (log, show,
// diff and their family).
func gitRevTables() {
	gitGlobal = newTable("git", gitGlob, "C= c=!x config-env=!x exec-path?!x p,paginate!x P,no-pager git-dir=!s work-tree=!s namespace= bare!s "+
		"no-replace-objects literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs no-optional-locks super-prefix=!s "+
		"list-cmds= html-path man-path info-path version help",
		map[string]string{"c": "sets git configuration that can run commands", "config-env": "sets git configuration that can run commands",
			"exec-path": "changes where git finds its programs", "p": "runs a pager", "git-dir": "points git at another repository",
			"work-tree": "points git at another work tree", "bare": "points git at another repository",
			"super-prefix": "is internal to git"})
	gitLog = newTable("git log", gitRev, gitRevSpec, map[string]string{"ext-diff": "runs an external diff program",
		"textconv": "runs textconv filters", "output": "writes a file",
		"alternate-refs":    "runs core.alternateRefsCommand",
		"ignore-submodules": "runs git in submodules under their own configuration",
		"submodule":         "runs git in submodules under their own configuration"})
	for _, n := range []string{"log", "show", "whatchanged", "diff", "diff-tree", "diff-files", "diff-index", "rev-list"} {
		gitTables[n] = gitLog.renamed("git " + n)
	}
}

// gitRefTables: status, blame, ls-files, branch and tag.
func gitRefTables() {
	po("status", "v,verbose s,short b,branch show-stash ahead-behind porcelain? long z,null u? untracked-files? ignored? "+
		"ignore-submodules?!x column? no-renames renames M? find-renames?",
		map[string]string{"ignore-submodules": "runs git in submodules under their own configuration"})
	blame := po("blame", "incremental b root show-stats progress score-debug f,show-name n,show-number p,porcelain line-porcelain c t l s "+
		"e,show-email w ignore-rev= ignore-revs-file= color-lines color-by-age minimal S= contents= C? M? L= abbrev?", nil)
	blame.next = gitLog
	gitTables["annotate"] = blame.renamed("git annotate")
	po("ls-files", "z t v f c,cached d,deleted m,modified o,others i,ignored s,stage k,killed directory eol empty-directory "+
		"u,unmerged resolve-undo x,exclude= X,exclude-from= exclude-per-directory= exclude-standard full-name recurse-submodules "+
		"error-unmatch with-tree= abbrev? debug deduplicate sparse format=", nil)
	po("branch", "v,verbose q,quiet t,track?!s set-upstream!s u,set-upstream-to=!s unset-upstream!s color? r,remotes@L "+
		"contains?@L no-contains?@L with?@L without?@L abbrev? a,all@L d,delete!s D!s m,move!s M!s c,copy!s C!s l,list@L "+
		"show-current@L create-reflog!s edit-description!x f,force!s merged?@L no-merged?@L column? sort= points-at=@L "+
		"i,ignore-case recurse-submodules!s format= omit-empty",
		map[string]string{"t": "re-points a branch's upstream", "set-upstream": "re-points a branch's upstream",
			"u": "re-points a branch's upstream", "unset-upstream": "re-points a branch's upstream", "d": "deletes a branch",
			"D": "deletes a branch", "m": "renames a branch", "M": "renames a branch", "c": "copies a branch", "C": "copies a branch",
			"create-reflog": "creates a branch", "edit-description": "opens an editor on a branch description",
			"f": "forces a branch", "recurse-submodules": "creates branches in submodules"})
	gitSub("tag", poNum, "l,list@L n?@L d,delete!s v,verify a,annotate!s m,message=!s F,file=!s e,edit!x s,sign!s cleanup=!s "+
		"u,local-user=!s f,force!s create-reflog!s column? contains?@L no-contains?@L with?@L without?@L merged?@L no-merged?@L "+
		"sort= points-at?@L format= color? i,ignore-case omit-empty",
		map[string]string{"d": "deletes a tag", "a": "creates or changes a tag", "m": "creates or changes a tag",
			"F": "creates or changes a tag", "e": "opens an editor on a tag message", "s": "signs a tag", "u": "signs a tag",
			"cleanup": "creates or changes a tag", "f": "forces a tag", "create-reflog": "creates or changes a tag"})
}

// gitQueryTables: the plumbing and porcelain that only query (cat-file,
// grep, config, rev-parse, …).
func gitQueryTables() {
	po("for-each-ref", "s,shell p,perl python tcl count= format= color? sort= points-at= merged? no-merged? contains? "+
		"no-contains? ignore-case omit-empty stdin", nil)
	po("cat-file", "e p t s allow-unknown-type use-mailmap mailmap batch? batch-check? z batch-command? batch-all-objects buffer "+
		"follow-symlinks unordered textconv!x filters!x path=", map[string]string{"textconv": "runs textconv filters",
		"filters": "runs the repository's filters"})
	po("describe", "contains debug all tags long first-parent abbrev? exact-match candidates= match= exclude= always dirty? broken?", nil)
	sl := po("shortlog", "c,committer n,numbered s,summary e,email w? group=", nil)
	sl.style.abbrev = false // its options reach revision.c when parse-options does not know them
	sl.next = gitLog
	gitSub("grep", poNum, "cached no-index@N untracked exclude-standard recurse-submodules v,invert-match i,ignore-case "+
		"w,word-regexp a,text I textconv!x no-textconv r,recursive max-depth= E,extended-regexp G,basic-regexp F,fixed-strings "+
		"P,perl-regexp n,line-number column h H full-name l,files-with-matches name-only L,files-without-match z,null "+
		"o,only-matching c,count color? break heading C,context= B,before-context= A,after-context= threads= p,show-function "+
		"W,function-context f= e= and or not q,quiet all-match O,open-files-in-pager?!x ext-grep m,max-count= index",
		map[string]string{"textconv": "runs textconv filters", "O": "runs a pager command"})
	po("ls-tree", "d r t z l,long name-only name-status object-only full-name full-tree format= abbrev?", nil)
	po("show-ref", "tags heads verify head d,dereference s,hash? abbrev? q,quiet exclude-existing?", nil)
	po("merge-base", "a,all octopus independent is-ancestor fork-point", nil)
	po("name-rev", "name-only tags refs= exclude= all stdin annotate-stdin undefined always peel-tag", nil)
	po("count-objects", "v,verbose H,human-readable", nil)
	po("check-ignore", "q,quiet v,verbose stdin z n,non-matching no-index index", nil)
	po("check-attr", "a,all cached stdin z source=", nil)
	po("show-branch", "a,all r,remotes color? more? list no-name name current sha1-name merge-base independent topo-order topics "+
		"sparse date-order g,reflog?", nil)
	po("config", "global system local worktree f,file= blob= get@R get-all@R get-regexp@R get-urlmatch@R replace-all!s add!s "+
		"unset!s unset-all!s rename-section!s remove-section!s l,list@R fixed-value e,edit!x get-color@R get-colorbool@R "+
		"t,type= bool int bool-or-int bool-or-str path expiry-date z,null name-only includes show-origin show-scope default=",
		map[string]string{"e": "opens an editor on git configuration"})
	po("worktree list", "porcelain v,verbose expire= z", nil)
	gitSub("remote", gitPOPos, "v,verbose", nil)
	po("remote show", "n", nil)
	po("remote get-url", "push all", nil)
	st := po("stash show", "u,include-untracked only-untracked", nil)
	st.next = gitLog
	gitTables["stash list"] = gitLog.renamed("git stash list")
	gitTables["reflog"] = gitLog.renamed("git reflog")
	po("reflog exists", "", nil)
	gitSub("rev-parse", exact, "parseopt sq-quote keep-dashdash stop-at-non-option stuck-long revs-only no-revs flags no-flags "+
		"default= prefix= verify q,quiet sq short? not symbolic symbolic-full-name abbrev-ref? disambiguate= all branches? tags? "+
		"remotes? glob= exclude= exclude-hidden= local-env-vars path-format= git-dir git-common-dir resolve-git-dir= git-path= "+
		"absolute-git-dir is-inside-git-dir is-inside-work-tree is-bare-repository is-shallow-repository shared-index-path= "+
		"show-object-format? show-toplevel show-superproject-working-tree show-prefix show-cdup since= after= until= before= "+
		"show-ref-format", nil)
	gitSub("version", exact, "build-options", nil)
	gitSub("var", exact, "l", nil)
}

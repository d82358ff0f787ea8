package shellguard

import "strings"

// The option tables of the safe-listed programs. Spec syntax: see newTable.
// Tables whose style.abbrev is set list every option the installed program
// has (TestTablesComplete checks them against --help / git's completion
// helper): resolving an abbreviation needs the whole set. The other tables
// match option names exactly, so an option they lack is simply unknown.

var (
	gnu      = optStyle{abbrev: true, permute: true}
	gnuStop  = optStyle{abbrev: true}    // getopt with "+": stops at the first operand
	exact    = optStyle{permute: true}   // exact long names, options anywhere
	exactPos = optStyle{}                // exact long names, stops at the first operand
	builtin  = optStyle{noBundle: false} // bash builtins: stop at the first operand
	goFlags  = optStyle{single: true}    // Go's flag package
	gitPO    = optStyle{abbrev: true, permute: true, gitNeg: true, endOpts: true}
	gitPOPos = optStyle{abbrev: true, gitNeg: true, endOpts: true}   // PARSE_OPT_STOP_AT_NON_OPTION
	gitRev   = optStyle{permute: true, numeric: true, endOpts: true} // revision.c / diff.c: exact names
	gitGlob  = optStyle{}                                            // git's own options: exact, before the subcommand
)

// tables maps a safe-listed command name to its options. Commands without
// a table take no options (their arguments are all operands).
var tables = map[string]*optTable{}

func table(name string, style optStyle, spec string, whys map[string]string) *optTable {
	t := newTable(name, style, spec, whys)
	tables[name] = t
	return t
}

const gnuHV = " help version"

var sumSpec = "b,binary c,check tag t,text z,zero ignore-missing quiet status strict w,warn" + gnuHV

// Tables of the git subcommands, by subcommand.
var gitTables = map[string]*optTable{}

var (
	gitGlobal *optTable
	gitLog    *optTable // revision and diff options (log, show, diff, ...)
	goTables  = map[string]*optTable{}
	envTable  *optTable
	findTable *optTable
)

func initOptTables() {
	readerTables()
	listingTables()
	searchTables()
	findAndGoTables()
	gitTables1()
}

// readerTables: coreutils that read and print (cat, head, grep, diff,
// the checksums, od, paste).
func readerTables() {
	table("cat", gnu, "A,show-all b,number-nonblank e E,show-ends n,number s,squeeze-blank t T,show-tabs u v,show-nonprinting"+gnuHV, nil)
	table("head", optStyle{abbrev: true, permute: true, numeric: true}, "c,bytes= n,lines= q,quiet,silent v,verbose z,zero-terminated"+gnuHV, nil)
	table("tail", optStyle{abbrev: true, permute: true, numeric: true}, "c,bytes= f follow? F n,lines= max-unchanged-stats= pid= q,quiet,silent retry s,sleep-interval= v,verbose z,zero-terminated"+gnuHV, nil)
	table("wc", gnu, "c,bytes m,chars l,lines files0-from= L,max-line-length w,words total="+gnuHV, nil)
	grep := "E,extended-regexp F,fixed-strings G,basic-regexp P,perl-regexp e,regexp= f,file= i,y,ignore-case no-ignore-case w,word-regexp " +
		"x,line-regexp z,null-data s,no-messages v,invert-match V,version help m,max-count= b,byte-offset n,line-number line-buffered " +
		"H,with-filename h,no-filename label= o,only-matching q,quiet,silent binary-files= a,text I d,directories= D,devices= " +
		"r,recursive R,dereference-recursive include= exclude= exclude-from= exclude-dir= L,files-without-match l,files-with-matches " +
		"c,count T,initial-tab Z,null B,before-context= A,after-context= C,context= group-separator= no-group-separator color,colour? U,binary"
	for _, n := range []string{"grep", "egrep", "fgrep"} {
		table(n, optStyle{abbrev: true, permute: true, numeric: true}, grep, nil)
	}
	table("pwd", builtin, "L P", nil)
	table("stat", gnu, "L,dereference f,file-system cached= c,format= printf= t,terse"+gnuHV, nil)
	table("du", gnu, "0,null a,all apparent-size B,block-size= b,bytes c,total D,dereference-args d,max-depth= files0-from= H h,human-readable "+
		"inodes k L,dereference l,count-links m P,no-dereference S,separate-dirs si s,summarize t,threshold= time? time-style= X,exclude-from= "+
		"exclude= x,one-file-system"+gnuHV, nil)
	table("df", gnu, "a,all B,block-size= h,human-readable H,si i,inodes k l,local no-sync output? P,portability sync total t,type= T,print-type "+
		"x,exclude-type= v"+gnuHV, nil)
	table("printenv", gnu, "0,null"+gnuHV, nil)
	table("whoami", gnu, strings.TrimSpace(gnuHV), nil)
	table("id", gnu, "a Z,context g,group G,groups n,name r,real u,user z,zero"+gnuHV, nil)
	table("uname", gnu, "a,all s,kernel-name n,nodename r,kernel-release v,kernel-version m,machine p,processor i,hardware-platform o,operating-system"+gnuHV, nil)
	table("basename", gnu, "a,multiple s,suffix= z,zero"+gnuHV, nil)
	table("dirname", gnu, "z,zero"+gnuHV, nil)
	table("realpath", gnu, "e,canonicalize-existing m,canonicalize-missing L,logical P,physical q,quiet relative-to= relative-base= s,strip,no-symlinks z,zero"+gnuHV, nil)
	table("readlink", gnu, "f,canonicalize e,canonicalize-existing m,canonicalize-missing n,no-newline q,quiet s,silent v,verbose z,zero"+gnuHV, nil)
	table("cut", gnu, "b,bytes= c,characters= d,delimiter= f,fields= n complement s,only-delimited output-delimiter= z,zero-terminated"+gnuHV, nil)
	table("tr", gnu, "c,C,complement d,delete s,squeeze-repeats t,truncate-set1"+gnuHV, nil)
	table("diff", optStyle{abbrev: true, permute: true, numeric: true}, "normal q,brief s,report-identical-files c,context? C= u,unified? U= e,ed n,rcs y,side-by-side "+
		"W,width= left-column suppress-common-lines p,show-c-function F,show-function-line= label= t,expand-tabs T,initial-tab tabsize= "+
		"suppress-blank-empty l,paginate!x r,recursive no-dereference N,new-file unidirectional-new-file ignore-file-name-case "+
		"no-ignore-file-name-case x,exclude= X,exclude-from= S,starting-file= from-file= to-file= i,ignore-case E,ignore-tab-expansion "+
		"Z,ignore-trailing-space b,ignore-space-change w,ignore-all-space B,ignore-blank-lines I,ignore-matching-lines= a,text "+
		"strip-trailing-cr D,ifdef= old-group-format= new-group-format= unchanged-group-format= changed-group-format= line-format= "+
		"old-line-format= new-line-format= unchanged-line-format= d,minimal horizon-lines= speed-large-files color? palette= help v,version",
		map[string]string{"l": "runs pr on the output"})
	table("cmp", gnu, "b,print-bytes i,ignore-initial= l,verbose n,bytes= s,quiet,silent help v,version", nil)
	table("comm", gnu, "1 2 3 check-order nocheck-order output-delimiter= total z,zero-terminated"+gnuHV, nil)
	for _, n := range []string{"sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "md5sum"} {
		table(n, gnu, sumSpec, nil)
	}
	table("b2sum", gnu, "l,length= "+sumSpec, nil)
	table("cksum", gnu, "a,algorithm= base64 c,check l,length= raw tag untagged z,zero ignore-missing quiet status strict w,warn debug"+gnuHV, nil)
	table("sum", gnu, "r s,sysv"+gnuHV, nil)
	table("seq", optStyle{abbrev: true, numeric: true}, "f,format= s,separator= w,equal-width"+gnuHV, nil)
	table("nl", gnu, "b,body-numbering= d,section-delimiter= f,footer-numbering= h,header-numbering= i,line-increment= l,join-blank-lines= "+
		"n,number-format= p,no-renumber s,number-separator= v,starting-line-number= w,number-width="+gnuHV, nil)
	table("od", gnu, "A,address-radix= endian= j,skip-bytes= N,read-bytes= S= strings? t,format= v,output-duplicates w,width? traditional a b c d f i l o s x"+gnuHV, nil)
	table("tac", gnu, "b,before r,regex s,separator="+gnuHV, nil)
	table("paste", gnu, "d,delimiters= s,serial z,zero-terminated"+gnuHV, nil)
}

// listingTables: ls, sort, uniq, date, env, file and other listers, and
// the shell builtins with options.
func listingTables() {
	table("ls", optStyle{abbrev: true, permute: true}, "a,all A,almost-all author b,escape block-size= B,ignore-backups c C color? d,directory D,dired f F classify? "+
		"file-type format= full-time g group-directories-first G,no-group h,human-readable si H,dereference-command-line "+
		"dereference-command-line-symlink-to-dir hide= hyperlink? indicator-style= i,inode I,ignore= k,kibibytes l L,dereference m "+
		"n,numeric-uid-gid N,literal o p q,hide-control-chars show-control-chars Q,quote-name quoting-style= r,reverse R,recursive "+
		"s,size S sort= time= time-style= t T,tabsize= u U v w,width= x X Z,context zero 1"+gnuHV, nil)
	table("sleep", gnu, strings.TrimSpace(gnuHV), nil)
	table("sort", gnu, "b,ignore-leading-blanks d,dictionary-order f,ignore-case g,general-numeric-sort i,ignore-nonprinting M,month-sort "+
		"h,human-numeric-sort n,numeric-sort R,random-sort random-source= r,reverse sort= V,version-sort batch-size= c check? C "+
		"compress-program=!x debug files0-from= k,key= m,merge o,output=!w s,stable S,buffer-size= t,field-separator= "+
		"T,temporary-directory= parallel= u,unique z,zero-terminated"+gnuHV, map[string]string{"compress-program": "runs a compressor command"})
	table("uniq", gnu, "c,count d,repeated D all-repeated? f,skip-fields= group? i,ignore-case s,skip-chars= u,unique z,zero-terminated w,check-chars="+gnuHV, nil)
	table("date", gnu, "d,date= debug f,file= I,iso-8601? resolution R,rfc-email rfc-3339= r,reference= s,set=!s u,utc,universal"+gnuHV,
		map[string]string{"s": "sets the clock"})
	envTable = table("env", gnuStop, "i,ignore-environment 0,null u,unset= C,chdir= S,split-string=!x block-signal? default-signal? "+
		"ignore-signal? list-signal-handling v,debug"+gnuHV,
		map[string]string{"S": "runs the command its split string names"})
	table("file", optStyle{abbrev: true, permute: true}, "help v,version m,magic-file= z,uncompress!x Z,uncompress-noreport!x b,brief c,checking-printout "+
		"e,exclude= exclude-quiet= f,files-from= F,separator= i,mime apple extension mime-type mime-encoding k,keep-going l,list "+
		"L,dereference h,no-dereference n,no-buffer N,no-pad 0,print0 p,preserve-date P,parameter= r,raw s,special-files "+
		"S,no-sandbox C,compile!w d,debug", map[string]string{"C": "compiles a magic file",
		"z": "runs decompression programs", "Z": "runs decompression programs"})
	table("hostname", gnu, "a,alias A,all-fqdns b,boot!s d,domain f,fqdn,long F,file=!s i,ip-address I,all-ip-addresses s,short y,yp,nis "+
		"v,verbose h,help V,version", map[string]string{"b": "sets the hostname", "F": "sets the hostname"})
	table("column", gnu, "t,table n,table-name= O,table-order= N,table-columns= l,table-columns-limit= E,table-noextreme= d,table-noheadings "+
		"e,table-header-repeat H,table-hide= R,table-right= T,table-truncate= W,table-wrap= L,keep-empty-lines J,json r,tree= "+
		"i,tree-id= p,tree-parent= c,output-width= o,output-separator= s,separator= x,fillrows h,help V,version", nil)
	table("hexdump", gnu, "b,one-byte-octal c,one-byte-char C,canonical d,two-bytes-decimal o,two-bytes-octal x,two-bytes-hex L,color? "+
		"e,format= f,format-file= n,length= s,skip= v,no-squeezing h,help V,version", nil)
	table("strings", gnu, "a,all d,data f,print-file-name n,bytes= t,radix= w,include-all-whitespace o T,target= e,encoding= "+
		"unicode= U= s,output-separator= h,help v,V,version", nil)
	table("rev", gnu, "h,help V,version", nil)
	table("which", exactPos, "a s", nil)
	table("type", builtin, "a f P p t", nil)
	table("cd", builtin, "L P e @", nil)
	table("pushd", builtin, "n", nil)
	table("popd", builtin, "n", nil)
	table("command", builtin, "p v@R V@R", nil)
	table("printf", builtin, "v=!w", map[string]string{"v": "assigns a shell variable"})
}

// searchTables: jq, yq, xxd, tree and the recursive searchers (rg, fd, ag).
func searchTables() {
	// jq 1.6 matches long options exactly and bundles short ones.
	jq := "s,slurp r,raw-output j,join-output a,ascii-output S,sort-keys C,color-output M,monochrome-output n,null-input R,raw-input " +
		"c,compact-output e,exit-status h,help V,version tab indent= seq stream unbuffered f,from-file= L= arg=2 argjson=2 slurpfile=2 " +
		"rawfile=2 args jsonargs run-tests? debug-dump-disasm debug-trace"
	table("jq", exact, jq, nil)
	// yq (the Python jq wrapper): argparse abbreviates its own options and
	// hands the rest to jq.
	table("yq", optStyle{abbrev: true, permute: true}, "y,yaml-output,yml-output Y,yaml-roundtrip,yml-roundtrip yaml-output-grammar-version,yml-out-ver= "+
		"w,width= indentless-lists,indentless i,in-place!w inplace!w split-exp=!w "+
		strings.NewReplacer("h,help V,version", "h,help version", "s,slurp", "s!w slurp").Replace(jq),
		map[string]string{"i": "edits files in place", "inplace": "edits files in place (mikefarah yq)",
			"split-exp": "writes a file per document (mikefarah yq)", "s": "writes a file per document (mikefarah yq -s)"})
	table("xxd", optStyle{single: true}, "a autoskip b bits C capitalize c= cols= E EBCDIC e g= groupsize= h help i include l= len= n= name= "+
		"o= offset= p ps postscript plain r revert d s= seek= u uppercase v version R=", nil)
	table("tree", exact, "a d l f x L= R!w P= I= gitignore gitfile= ignore-case matchdirs metafirst prune info infofile= noreport "+
		"charset= filelimit= o=!w output=!w q N Q p u g s h si du D timefmt= F inodes device v t c U r dirsfirst filesfirst sort= "+
		"i A S n C X J H= T= nolinks hintro= houtro= fromfile fromtabfile fflinks version help", map[string]string{"R": "writes an HTML file in each directory"})
	table("rg", exact, "A,after-context= B,before-context= C,context= a,text b,byte-offset c,count count-matches color= colors= column "+
		"context-separator= no-context-separator crlf no-crlf debug trace dfa-size-limit= E,encoding= no-encoding engine= field-context-separator= "+
		"field-match-separator= f,file= files l,files-with-matches files-without-match F,fixed-strings no-fixed-strings L,follow no-follow "+
		"g,glob= glob-case-insensitive no-glob-case-insensitive heading no-heading H,with-filename I,no-filename hidden no-hidden iglob= "+
		"i,ignore-case ignore-file= ignore-file-case-insensitive no-ignore-file-case-insensitive include-zero no-include-zero "+
		"v,invert-match no-invert-match json no-json line-buffered no-line-buffered n,line-number N,no-line-number x,line-regexp "+
		"M,max-columns= max-columns-preview no-max-columns-preview m,max-count= d,max-depth,maxdepth= max-filesize= mmap no-mmap "+
		"U,multiline no-multiline multiline-dotall no-multiline-dotall no-config no-ignore ignore no-ignore-dot ignore-dot "+
		"no-ignore-exclude ignore-exclude no-ignore-files ignore-files no-ignore-global ignore-global no-ignore-messages ignore-messages "+
		"no-ignore-parent ignore-parent no-ignore-vcs ignore-vcs no-messages messages no-pcre2-unicode pcre2-unicode no-require-git require-git "+
		"no-unicode unicode 0,null null-data one-file-system no-one-file-system o,only-matching path-separator= passthru,passthrough "+
		"P,pcre2 no-pcre2 pcre2-version pre=!x no-pre pre-glob= p,pretty q,quiet regex-size-limit= e,regexp= r,replace= "+
		"z,search-zip!x no-search-zip S,smart-case s,case-sensitive sort= sortr= stats no-stats stop-on-nonmatch T,type-not= "+
		"t,type= type-add= type-clear= type-list u,unrestricted vimgrep w,word-regexp j,threads= trim no-trim block-buffered "+
		"no-block-buffered hostname-bin=!x hyperlink-format= generate= h,help V,version no-column auto-hybrid-regex "+
		"no-auto-hybrid-regex binary no-binary", map[string]string{"pre": "runs a preprocessor command", "z": "runs decompression programs",
		"hostname-bin": "runs a program to find the hostname"})
	table("fd", exact, "H,hidden no-hidden I,no-ignore ignore no-ignore-vcs ignore-vcs no-require-git require-git no-ignore-parent "+
		"no-global-ignore-file u,unrestricted s,case-sensitive i,ignore-case g,glob regex F,fixed-strings and= a,absolute-path relative-path "+
		"l,list-details!x L,follow no-follow p,full-path 0,print0 d,max-depth,maxdepth= min-depth= exact-depth= E,exclude= prune "+
		"t,type= e,extension= S,size= changed-within,change-newer-than,newer= changed-before,change-older-than,older= o,owner= format= "+
		"x,exec=!x X,exec-batch=!x batch-size= ignore-file= c,color= hyperlink? j,threads= max-buffer-time= max-results= 1 q,quiet "+
		"show-errors base-directory= path-separator= search-path= strip-cwd-prefix? one-file-system,mount,xdev h,help V,version",
		map[string]string{"x": "runs a command for each file", "X": "runs a command for each file", "l": "runs ls on the results"})
	table("ag", exact, "ackmate a,all-types A,after= B,before= break no-break c,count color no-color color-line-number= color-match= "+
		"color-path= column C,context? D,debug depth= f,follow F,fixed-strings filename no-filename print0 "+
		"l,files-with-matches L,files-without-matches g= G,file-search-regex= group no-group hidden H,heading no-heading i,ignore-case "+
		"ignore= ignore-dir= m,max-count= numbers no-numbers o,only-matching one-device p,path-to-ignore= pager=!x no-pager "+
		"parallel passthrough,passthru print-long-lines Q,literal s,case-sensitive S,smart-case search-binary silent stats stats-only "+
		"t,all-text u,unrestricted U,skip-vcs-ignores v,invert-match vimgrep w,word-regexp W,width= workers= z,search-zip!x "+
		"0,null h,help V,version list-file-types r,recurse n,norecurse",
		map[string]string{"pager": "runs a pager command", "z": "runs decompression programs"})
}

// findAndGoTables: find's expression and the read-only go subcommands.
func findAndGoTables() {
	findTable = newTable("find", optStyle{single: true},
		"H L P D= O name= iname= path= ipath= wholename= iwholename= regex= iregex= lname= ilname= type= xtype= size= "+
			"mtime= mmin= atime= amin= ctime= cmin= used= newer= anewer= cnewer= newerXY= perm= user= group= uid= gid= links= "+
			"inum= samefile= maxdepth= mindepth= printf= fstype= context= regextype= files0-from= quit prune print print0 ls empty "+
			"executable readable writable true false nouser nogroup depth d mount xdev noleaf ignore_readdir_race "+
			"noignore_readdir_race daystart follow warn nowarn help version not a and o or "+
			"delete!w exec!x execdir!x ok!x okdir!x fprint=!w fprint0=!w fprintf=!w fls=!w",
		map[string]string{"delete": "deletes files", "exec": "runs a command for each file", "execdir": "runs a command for each file",
			"ok": "runs a command for each file", "okdir": "runs a command for each file"})
	tables["find"] = findTable

	goTables["env"] = newTable("go env", goFlags, "json changed w!w u!w C=", map[string]string{"w": "changes the Go environment", "u": "changes the Go environment"})
	goTables["version"] = newTable("go version", goFlags, "m v json", nil)
	goTables["doc"] = newTable("go doc", goFlags, "all c cmd short src u C=", nil)
	goTables["list"] = newTable("go list", goFlags, "f= json? m u versions retracted deps test e find reuse= mod=!w modfile= tags= buildvcs? "+
		"C= compiled!x export!x exec!x toolexec=!x overlay=!x pgo=!x", map[string]string{"compiled": "builds packages", "export": "builds packages",
		"exec": "builds packages", "toolexec": "runs a program for each tool", "mod": "may update go.mod (-mod=mod)", "overlay": "builds packages", "pgo": "builds packages"})
}

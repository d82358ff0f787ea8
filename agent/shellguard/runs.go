package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Programs that run a command given in their arguments. Every argument or
// option a program executes as a command is taken out and classified as a
// command of its own, by the floor and by the rules, whatever the mode:
// git grep --open-files-in-pager='rm -rf /' x is floor, and a shell.deny
// rule for curl denies git rebase --exec 'curl …'. runTable is the one
// place that lists them (docs/shellguard.md renders it);
// TestRunTableRows builds a command from every row.

// runKind is how a program runs the command an argument carries.
type runKind uint8

const (
	// runOpt: the option's value is shell code (git grep -O CMD, script -c CMD).
	runOpt runKind = iota + 1
	// runArgs: the operands after the options, past skip operands, are a
	// command and its arguments (chroot DIR CMD…, git bisect run CMD…).
	runArgs
	// runLine: the operands after the options, past skip operands, are
	// joined with spaces and run by a shell (ssh HOST CMD…, watch CMD…).
	runLine
	// runUntil: the words after the option, up to ";" or "+", are a
	// command (find -exec CMD… ;).
	runUntil
	// runFlagLine: with the option, the wrapper's command words are joined
	// and run by a shell (sudo -s CMD…).
	runFlagLine
	// runConfig: git configuration whose value git runs as a command
	// (git -c core.pager=CMD, --config-env, git config KEY CMD,
	// GIT_CONFIG_KEY_n/VALUE_n, GIT_CONFIG_PARAMETERS); opt is the key,
	// "*" standing for any one part.
	runConfig
	// runEnv: an environment variable whose value a program runs
	// (GIT_SSH_COMMAND=CMD git fetch, env GIT_PAGER=CMD …, export PAGER=CMD).
	runEnv
	// runPeel: a wrapper peel.go removes; its command is the segment
	// (nice CMD…, timeout 5 CMD…).
	runPeel
	// runRest: the words after the option are a command and its
	// arguments (xterm -e CMD…).
	runRest
)

// runRow is one way a program runs a command.
type runRow struct {
	// cmd is the program, then its subcommand words; "|" separates the
	// spellings of a word ("tmux new-session|new").
	cmd string
	// opt names the option: comma-separated, a letter is a short option,
	// a name a long one (--name), "-name" a single-dash long one (find
	// -exec); a trailing "?" marks an optional value, taken only stuck
	// (-Ovalue, --name=value). runConfig: the configuration key; runEnv:
	// the variable.
	opt  string
	kind runKind
	// skip: operands before the command (chroot NEWROOT, ssh HOST).
	skip int
	// marks: the value runs only after one of these "|"-separated markers
	// (vim -c '!CMD', tar --checkpoint-action=exec=CMD); the rest is the
	// command. Matched case-insensitively.
	marks string
	// note says what runs, for the docs.
	note string
}

// runTable lists every argument or option that a program runs as a
// command.
var runTable = []runRow{
	// git: options of subcommands.
	{cmd: "git grep", opt: "O?,open-files-in-pager?", kind: runOpt, note: "the pager it opens the matching files in"},
	{cmd: "git fetch|pull|clone|ls-remote|fetch-pack", opt: "upload-pack", kind: runOpt, note: "the remote's upload-pack, run by the shell for a local or ssh remote"},
	{cmd: "git clone", opt: "u", kind: runOpt, note: "short for --upload-pack"},
	{cmd: "git fetch-pack|archive", opt: "exec", kind: runOpt, note: "the remote's upload-pack/upload-archive"},
	{cmd: "git push|send-pack", opt: "receive-pack,exec", kind: runOpt, note: "the remote's receive-pack"},
	{cmd: "git difftool", opt: "x,extcmd", kind: runOpt, note: "the diff command"},
	{cmd: "git rebase", opt: "x,exec", kind: runOpt, note: "a command after each commit"},
	{cmd: "git bisect run", kind: runArgs, note: "the test command"},
	{cmd: "git submodule foreach", kind: runLine, note: "a shell command in each submodule"},
	{cmd: "git filter-branch", opt: "setup,env-filter,tree-filter,index-filter,parent-filter,msg-filter,commit-filter,tag-name-filter", kind: runOpt, note: "the filters (shell code)"},
	{cmd: "git send-email", opt: "sendmail-cmd,smtp-server,to-cmd,cc-cmd,header-cmd", kind: runOpt, note: "the mail program and the address commands"},
	{cmd: "git instaweb", opt: "httpd,browser", kind: runOpt, note: "the web server and browser"},
	// git: configuration whose value is a command (git -c KEY=CMD,
	// --config-env, git config KEY CMD and the environment forms).
	{cmd: "git", opt: "core.pager", kind: runConfig},
	{cmd: "git", opt: "pager.*", kind: runConfig},
	{cmd: "git", opt: "core.editor", kind: runConfig},
	{cmd: "git", opt: "sequence.editor", kind: runConfig},
	{cmd: "git", opt: "core.sshCommand", kind: runConfig},
	{cmd: "git", opt: "core.gitProxy", kind: runConfig},
	{cmd: "git", opt: "core.askPass", kind: runConfig},
	{cmd: "git", opt: "core.fsmonitor", kind: runConfig},
	{cmd: "git", opt: "core.alternateRefsCommand", kind: runConfig},
	{cmd: "git", opt: "alias.*", kind: runConfig, marks: "!", note: "a shell alias (a value starting with !)"},
	{cmd: "git", opt: "credential.helper", kind: runConfig, note: "a helper (!CMD is shell code)"},
	{cmd: "git", opt: "credential.*.helper", kind: runConfig},
	{cmd: "git", opt: "diff.external", kind: runConfig},
	{cmd: "git", opt: "diff.*.command", kind: runConfig},
	{cmd: "git", opt: "diff.*.textconv", kind: runConfig},
	{cmd: "git", opt: "merge.*.driver", kind: runConfig},
	{cmd: "git", opt: "mergetool.*.cmd", kind: runConfig},
	{cmd: "git", opt: "mergetool.*.path", kind: runConfig},
	{cmd: "git", opt: "difftool.*.cmd", kind: runConfig},
	{cmd: "git", opt: "difftool.*.path", kind: runConfig},
	{cmd: "git", opt: "filter.*.clean", kind: runConfig},
	{cmd: "git", opt: "filter.*.smudge", kind: runConfig},
	{cmd: "git", opt: "filter.*.process", kind: runConfig},
	{cmd: "git", opt: "gpg.program", kind: runConfig},
	{cmd: "git", opt: "gpg.*.program", kind: runConfig},
	{cmd: "git", opt: "uploadpack.packObjectsHook", kind: runConfig},
	{cmd: "git", opt: "remote.*.uploadpack", kind: runConfig},
	{cmd: "git", opt: "remote.*.receivepack", kind: runConfig},
	{cmd: "git", opt: "sendemail.sendmailcmd", kind: runConfig},
	{cmd: "git", opt: "sendemail.*.sendmailcmd", kind: runConfig},
	{cmd: "git", opt: "browser.*.cmd", kind: runConfig},
	{cmd: "git", opt: "browser.*.path", kind: runConfig},
	{cmd: "git", opt: "man.*.cmd", kind: runConfig},
	{cmd: "git", opt: "guitool.*.cmd", kind: runConfig},
	{cmd: "git", opt: "sendemail.toCmd", kind: runConfig},
	{cmd: "git", opt: "sendemail.ccCmd", kind: runConfig},
	{cmd: "git", opt: "sendemail.headerCmd", kind: runConfig},
	{cmd: "git", opt: "imap.tunnel", kind: runConfig},
	{cmd: "git", opt: "instaweb.httpd", kind: runConfig},
	{cmd: "git", opt: "trailer.*.command", kind: runConfig},
	{cmd: "git", opt: "trailer.*.cmd", kind: runConfig},
	{cmd: "git", opt: "submodule.*.update", kind: runConfig, marks: "!", note: "git submodule update runs a !command"},
	{cmd: "git", opt: "gpg.ssh.defaultKeyCommand", kind: runConfig},
	// Environment variables whose value a program runs.
	{cmd: "git", opt: "GIT_SSH_COMMAND", kind: runEnv},
	{cmd: "git", opt: "GIT_SSH", kind: runEnv},
	{cmd: "git", opt: "GIT_PAGER", kind: runEnv},
	{cmd: "git", opt: "GIT_EDITOR", kind: runEnv},
	{cmd: "git", opt: "GIT_SEQUENCE_EDITOR", kind: runEnv},
	{cmd: "git", opt: "GIT_ASKPASS", kind: runEnv},
	{cmd: "git", opt: "GIT_EXTERNAL_DIFF", kind: runEnv},
	{cmd: "git", opt: "GIT_PROXY_COMMAND", kind: runEnv},
	{cmd: "man", opt: "PAGER", kind: runEnv},
	{cmd: "man", opt: "MANPAGER", kind: runEnv},
	{cmd: "crontab", opt: "EDITOR", kind: runEnv},
	{cmd: "crontab", opt: "VISUAL", kind: runEnv},
	{cmd: "xdg-open", opt: "BROWSER", kind: runEnv},
	{cmd: "ssh", opt: "SSH_ASKPASS", kind: runEnv},
	{cmd: "sudo", opt: "SUDO_ASKPASS", kind: runEnv},
	{cmd: "bash", opt: "PROMPT_COMMAND", kind: runEnv},
	{cmd: "less", opt: "LESSOPEN", kind: runEnv, note: "an input preprocessor (|CMD)"},
	{cmd: "less", opt: "LESSCLOSE", kind: runEnv},
	{cmd: "rsync", opt: "RSYNC_RSH", kind: runEnv},
	{cmd: "systemctl", opt: "SYSTEMD_PAGER", kind: runEnv},
	{cmd: "systemctl", opt: "SYSTEMD_EDITOR", kind: runEnv},
	{cmd: "svn", opt: "SVN_SSH", kind: runEnv},
	{cmd: "svn", opt: "SVN_EDITOR", kind: runEnv},
	{cmd: "cvs", opt: "CVS_RSH", kind: runEnv},
	{cmd: "fc", opt: "FCEDIT", kind: runEnv},

	// find: the primaries that run a command.
	{cmd: "find", opt: "-exec,-execdir,-ok,-okdir", kind: runUntil},

	// Wrappers peel.go removes (its command is the segment).
	{cmd: "sudo", kind: runPeel}, {cmd: "doas", kind: runPeel}, {cmd: "env", kind: runPeel},
	{cmd: "nice", kind: runPeel}, {cmd: "timeout", kind: runPeel, skip: 1}, {cmd: "nohup", kind: runPeel},
	{cmd: "stdbuf", kind: runPeel}, {cmd: "ionice", kind: runPeel}, {cmd: "xargs", kind: runPeel},
	{cmd: "command", kind: runPeel}, {cmd: "exec", kind: runPeel}, {cmd: "time", kind: runPeel},
	{cmd: "setsid", kind: runPeel}, {cmd: "unbuffer", kind: runPeel}, {cmd: "busybox", kind: runPeel},
	{cmd: "builtin", kind: runPeel},
	{cmd: "env", opt: "S,split-string", kind: runOpt, note: "split into env's arguments again (peel.go)"},
	{cmd: "sudo", opt: "s,shell,i,login", kind: runFlagLine, note: "the command words, run by the target user's shell"},

	// Shell-command options of other programs.
	{cmd: "script", opt: "c,command", kind: runOpt},
	{cmd: "flock", opt: "c,command", kind: runOpt},
	{cmd: "su", opt: "c,command,session-command", kind: runOpt},
	{cmd: "runuser", opt: "c,command,session-command", kind: runOpt},
	{cmd: "sg", opt: "c", kind: runOpt},
	{cmd: "rsync", opt: "e,rsh,rsync-path", kind: runOpt, note: "the remote shell, the remote rsync"},
	{cmd: "tar", opt: "I,use-compress-program,to-command,info-script,new-volume-script,F,rsh-command", kind: runOpt},
	{cmd: "tar", opt: "checkpoint-action", kind: runOpt, marks: "exec="},
	{cmd: "zip", opt: "-TT,unzip-command", kind: runOpt, note: "the command that tests the archive"},
	{cmd: "vim|vi|nvim|ex|view|gvim|vimdiff|rvim", opt: "c,cmd,+", kind: runOpt, marks: "!|system(", note: "an Ex command that runs a shell (:!CMD)"},
	{cmd: "less|more", opt: "+", kind: runOpt, marks: "!", note: "a less command that runs a shell (+!CMD)"},
	{cmd: "gdb", opt: "ex,-ex,eval-command,-eval-command,iex,-iex,init-eval-command,-init-eval-command", kind: runOpt, marks: "shell |!"},
	{cmd: "make|gmake", opt: "E,eval", kind: runOpt, note: "makefile text: its recipes"},
	{cmd: "ssh|autossh|scp|sftp", opt: "o", kind: runOpt, marks: "ProxyCommand=|ProxyCommand |LocalCommand=|LocalCommand |KnownHostsCommand=|KnownHostsCommand |RemoteCommand=|RemoteCommand "},
	{cmd: "ssh|autossh", kind: runLine, skip: 1, note: "the remote command: a root that is not this machine's is still someone's root"},
	{cmd: "watch", kind: runLine, note: "run by sh -c (-x: as is)"},
	{cmd: "entr", opt: "s", kind: runFlagLine, note: "the utility, run by $SHELL -c"},
	{cmd: "entr", kind: runArgs},
	{cmd: "expect", opt: "c", kind: runOpt, marks: "spawn |exec |system "},
	{cmd: "npx", opt: "c,call", kind: runOpt},
	{cmd: "npm exec", opt: "c,call", kind: runOpt},
	{cmd: "pnpm exec|dlx", opt: "c,call", kind: runOpt},
	{cmd: "nix-shell", opt: "run,command", kind: runOpt},
	{cmd: "nix develop|shell", opt: "c,command", kind: runRest},
	{cmd: "tmux", opt: "c", kind: runOpt, note: "tmux -c: a shell command"},
	{cmd: "tmux new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|respawnw|display-popup|popup", kind: runLine, note: "the pane's shell command"},
	{cmd: "tmux run-shell|run|pipe-pane|pipep|if-shell|if", kind: runLine, note: "a shell command"},
	{cmd: "tmux send-keys|send", kind: runLine, note: "keys typed into a pane's shell"},
	{cmd: "screen", opt: "X", kind: runOpt, marks: "stuff |exec ", note: "text typed into a window, a program run in it"},
	{cmd: "screen", kind: runArgs},
	{cmd: "xterm|uxterm|konsole|alacritty|urxvt|st|rxvt", opt: "e,-e", kind: runRest, note: "the words after -e"},
	{cmd: "kitty|foot", kind: runArgs},
	{cmd: "wezterm start", kind: runArgs},
	{cmd: "gnome-terminal|xfce4-terminal|terminator|tilix|mate-terminal", opt: "e,command", kind: runOpt},
	{cmd: "gnome-terminal|xfce4-terminal|terminator|tilix|mate-terminal", opt: "x,execute", kind: runRest},
	{cmd: "gnome-terminal|mate-terminal", kind: runArgs},
	{cmd: "docker|podman exec|run", kind: runArgs, skip: 1, note: "a command in a container"},
	{cmd: "kubectl|oc exec", kind: runArgs, skip: 1},

	// Programs that run the command in their operands.
	{cmd: "chroot", kind: runArgs, skip: 1},
	{cmd: "runuser", kind: runArgs},
	{cmd: "flock", kind: runArgs, skip: 1},
	{cmd: "chrt", kind: runArgs, skip: 1},
	{cmd: "taskset", kind: runArgs, skip: 1},
	{cmd: "strace", kind: runArgs},
	{cmd: "ltrace", kind: runArgs},
	{cmd: "nsenter", kind: runArgs},
	{cmd: "unshare", kind: runArgs},
	{cmd: "systemd-run", kind: runArgs},
	{cmd: "dbus-launch", kind: runArgs},
	{cmd: "dbus-run-session", kind: runArgs},
	{cmd: "xvfb-run", kind: runArgs},
	{cmd: "ssh-agent", kind: runArgs},
	{cmd: "sg", kind: runLine, skip: 1},
	{cmd: "setpriv", kind: runArgs},
	{cmd: "numactl", kind: runArgs},
	{cmd: "prlimit", kind: runArgs},
	{cmd: "fakeroot", kind: runArgs},
	{cmd: "firejail", kind: runArgs},
	{cmd: "pkexec", kind: runArgs},
	{cmd: "valgrind", kind: runArgs},
	{cmd: "catchsegv", kind: runArgs},
	{cmd: "faketime", kind: runArgs, skip: 1},
	{cmd: "cpulimit", kind: runArgs},
	{cmd: "trickle", kind: runArgs},
	{cmd: "rlwrap", kind: runArgs},
	{cmd: "torsocks|proxychains|proxychains4", kind: runArgs},
	{cmd: "chpst", kind: runArgs},
	{cmd: "caffeinate", kind: runArgs},
	{cmd: "bwrap", kind: runArgs},
	{cmd: "sandbox-exec", kind: runArgs},
	{cmd: "perf record|stat|trace", kind: runArgs},
	{cmd: "uv|poetry|pipenv|conda|pdm|hatch|rye run", kind: runArgs},
	{cmd: "bundle|mise|asdf|npm|pnpm|yarn exec", kind: runArgs},
	{cmd: "bun x", kind: runArgs},
	{cmd: "proot", kind: runArgs},
	{cmd: "direnv exec", kind: runArgs, skip: 1},
	{cmd: "flatpak-spawn|distrobox-host-exec", kind: runArgs},
	{cmd: "parallel|sem", kind: runArgs, note: "CMD ::: ARGS runs CMD ARG (floor.go builds each line)"},
}

// runSyntax is how a program (or program + subcommand) parses its
// options: which take a value, so that a value is never read as an option
// or as the command, and whether options end at the first operand.
type runSyntax struct {
	vals string // options taking a value, in runRow.opt's spelling
	stop bool   // options end at the first operand (getopt with "+", POSIX)
	opt  string // options whose value is optional and only stuck (-d=x)
}

// runSyntaxes: by the row's program and subcommand (without spellings).
var runSyntaxes = map[string]runSyntax{
	"git grep":              {vals: "A,after-context,B,before-context,C,context,e,f,m,max-count,max-depth,threads"},
	"git fetch":             {vals: "depth,deepen,shallow-since,shallow-exclude,refmap,o,server-option,negotiation-tip,j,jobs,recurse-submodules-default,filter,submodule-prefix"},
	"git pull":              {vals: "depth,deepen,shallow-since,shallow-exclude,refmap,o,server-option,negotiation-tip,j,jobs,s,strategy,X,strategy-option,cleanup,gpg-sign,S"},
	"git clone":             {vals: "o,origin,b,branch,depth,shallow-since,shallow-exclude,reference,reference-if-able,separate-git-dir,c,config,j,jobs,filter,template,server-option,bundle-uri,ref-format,revision"},
	"git push":              {vals: "repo,o,push-option,signed,force-with-lease,recurse-submodules"},
	"git archive":           {vals: "o,output,prefix,remote,format,add-file,add-virtual-file,mtime"},
	"git rebase":            {vals: "onto,s,strategy,X,strategy-option,C,whitespace,empty,r,rebase-merges,S,gpg-sign"},
	"git difftool":          {vals: "t,tool,rotate-to,skip-to,O"},
	"git filter-branch":     {vals: "subdirectory-filter,original,d,state-branch", stop: true},
	"git send-email":        {vals: "from,to,cc,bcc,subject,in-reply-to,smtp-server-port,smtp-user,smtp-pass,smtp-encryption,smtp-domain,identity,confirm,transfer-encoding"},
	"git submodule foreach": {stop: true},
	"git bisect run":        {stop: true},
	"script":                {vals: "E,echo,I,log-in,O,log-out,B,log-io,T,log-timing,m,logging-format,o,output-limit"},
	"flock":                 {vals: "w,timeout,wait,E,conflict-exit-code"},
	"su":                    {vals: "s,shell,g,group,G,supp-group,w,whitelist-environment"},
	"runuser":               {vals: "u,user,g,group,G,supp-group,s,shell,w,whitelist-environment"},
	"rsync":                 {vals: "B,block-size,f,filter,exclude,include,exclude-from,include-from,files-from,T,temp-dir,compare-dest,copy-dest,link-dest,partial-dir,suffix,backup-dir,log-file,log-file-format,out-format,chmod,chown,usermap,groupmap,max-size,min-size,max-delete,bwlimit,timeout,contimeout,port,sockopts,password-file,iconv,checksum-choice,cc,compress-choice,zc,compress-level,zl,skip-compress,M,remote-option,info,debug,stop-after,stop-at,modify-window,@"},
	"tar":                   {vals: "f,file,C,directory,T,files-from,X,exclude-from,b,blocking-factor,H,format,g,listed-incremental,K,starting-file,L,tape-length,N,newer,after-date,V,label,exclude,transform,xform,owner,group,mode,mtime,checkpoint,suffix,backup,strip-components,newer-mtime,volno-file,index-file,record-size,sparse-version,occurrence,quoting-style,quoting-char,set-mtime-format,clamp-mtime,pax-option,warning,level,hole-detection,exclude-tag,exclude-tag-all,exclude-tag-under,exclude-vcs-ignores,atime-preserve"},
	"zip":                   {vals: "b,n,t,tt,O,P,x,i"},
	"vim":                   {vals: "S,u,U,i,w,W,T,r,servername,remote,remote-send,remote-expr,startuptime"},
	"proot":                 {vals: "r,rootfs,b,bind,m,mount,w,cwd,q,qemu,k,kernel-release,i,0", stop: true},
	"npm exec":              {vals: "package,p,w,workspace", stop: true},
	"gdb":                   {vals: "p,pid,x,command,ix,init-command,d,directory,cd,s,symbols,e,exec,se,core,c,tty,data-directory,D"},
	"make":                  {vals: "C,directory,f,file,makefile,I,include-dir,j,jobs,l,load-average,o,old-file,assume-old,W,what-if,new-file,assume-new,O,output-sync"},
	"ssh":                   {vals: "B,b,c,D,E,e,F,I,i,J,L,l,m,O,o,P,p,Q,R,S,W,w"},
	"autossh":               {vals: "B,b,c,D,E,e,F,I,i,J,L,l,m,O,o,P,p,Q,R,S,W,w,M"},
	"scp":                   {vals: "c,D,F,i,J,l,o,P,S,X"},
	"sftp":                  {vals: "B,b,c,D,F,i,J,l,o,P,R,S,s,X"},
	"watch":                 {vals: "n,interval,q,equexit", opt: "d,differences", stop: true},
	"entr":                  {stop: true},
	"expect":                {vals: "f,D,i"},
	"tmux":                  {vals: "L,S,f,T", stop: true},
	"tmux new-session":      {vals: "c,e,F,n,s,t,x,y,f", stop: true},
	"tmux new":              {vals: "c,e,F,n,s,t,x,y,f", stop: true},
	"tmux neww":             {vals: "c,e,F,n,t", stop: true},
	"tmux splitw":           {vals: "c,e,F,l,t", stop: true},
	"tmux respawnp":         {vals: "c,e,t", stop: true},
	"tmux respawnw":         {vals: "c,e,t", stop: true},
	"tmux popup":            {vals: "b,c,d,e,h,s,S,t,T,w,x,y", stop: true},
	"tmux run":              {vals: "c,d,t", stop: true},
	"tmux pipep":            {vals: "t", stop: true},
	"tmux if":               {vals: "t", stop: true},
	"tmux send":             {vals: "N,t", stop: true},
	"tmux new-window":       {vals: "c,e,F,n,t", stop: true},
	"tmux split-window":     {vals: "c,e,F,l,t", stop: true},
	"tmux respawn-pane":     {vals: "c,e,t", stop: true},
	"tmux respawn-window":   {vals: "c,e,t", stop: true},
	"tmux display-popup":    {vals: "b,c,d,e,h,s,S,t,T,w,x,y", stop: true},
	"tmux run-shell":        {vals: "c,d,t", stop: true},
	"tmux pipe-pane":        {vals: "t", stop: true},
	"tmux if-shell":         {vals: "t", stop: true},
	"tmux send-keys":        {vals: "N,t", stop: true},
	"screen":                {vals: "c,e,h,p,S,t,T,X,Logfile,-Logfile", stop: true},
	"xterm":                 {vals: "bg,fg,fn,fa,fs,geometry,-geometry,name,-name,title,-title,T,-T,class,-class,bd,bw,cr,ms,xrm,-xrm,display,-display"},
	"docker exec":           {vals: "detach-keys,e,env,env-file,u,user,w,workdir", stop: true},
	"podman exec":           {vals: "detach-keys,e,env,env-file,u,user,w,workdir,preserve-fd", stop: true},
	"docker run":            {vals: "a,attach,c,cpu-shares,e,env,env-file,entrypoint,h,hostname,l,label,m,memory,name,network,net,p,publish,u,user,v,volume,w,workdir,mount,platform,pull,restart,runtime,security-opt,cap-add,cap-drop,device,dns,add-host,ulimit,log-driver,log-opt,cidfile,tmpfs,gpus,pid,ipc,uts,userns,shm-size,stop-signal,stop-timeout,health-cmd,label-file,volumes-from,link,expose,init-path,cpus,cpuset-cpus,memory-swap,oom-score-adj", stop: true},
	"podman run":            {vals: "a,attach,c,cpu-shares,e,env,env-file,entrypoint,h,hostname,l,label,m,memory,name,network,net,p,publish,u,user,v,volume,w,workdir,mount,platform,pull,restart,runtime,security-opt,cap-add,cap-drop,device,dns,add-host,ulimit,log-driver,log-opt,cidfile,tmpfs,gpus,pid,ipc,uts,userns,shm-size,stop-signal,stop-timeout,health-cmd,label-file,volumes-from,expose,cpus,cpuset-cpus,memory-swap,oom-score-adj", stop: true},
	"kubectl exec":          {vals: "c,container,n,namespace,f,filename,pod-running-timeout,context,cluster,user,kubeconfig,s,server,token"},
	"oc exec":               {vals: "c,container,n,namespace,f,filename,pod-running-timeout,context,cluster,user,kubeconfig,s,server,token"},
	"chroot":                {vals: "userspec,groups", stop: true},
	"chrt":                  {stop: true},
	"taskset":               {stop: true},
	"strace":                {vals: "a,b,e,E,I,o,O,p,P,s,S,u,X,U,trace,signal,status,inject,fault,kvm,output,attach,path,string-limit,summary-columns,user,env,const-print-style,decode-fds,decode-pids,quiet,silence,silent,abbrev,verbose,raw,read,write,trace-path,columns,summary-sort-by,secontext,tips", stop: true},
	"ltrace":                {vals: "a,A,D,e,F,l,n,o,p,s,u,x,L,w,align,indent,library,output,config", stop: true},
	"nsenter":               {vals: "t,target,S,setuid,G,setgid,wd,W,env", opt: "m,mount,u,uts,i,ipc,n,net,p,pid,U,user,C,cgroup,T,time,r,root,w", stop: true},
	"unshare":               {vals: "S,setuid,G,setgid,R,root,w,wd,setgroups,map-user,map-group,map-users,map-groups,propagation,monotonic,boottime", opt: "m,mount,u,uts,i,ipc,n,net,p,pid,U,user,C,cgroup,T,time,mount-proc,kill-child", stop: true},
	"systemd-run":           {vals: "u,unit,p,property,description,slice,E,setenv,M,machine,H,host,on-active,on-boot,on-startup,on-unit-active,on-unit-inactive,on-calendar,on-timezone-change,on-clock-change,timer-property,path-property,socket-property,uid,gid,nice,working-directory,D,service-type,t,json,slice-inherit,expand-environment", stop: true},
	"dbus-launch":           {vals: "config-file", stop: true},
	"dbus-run-session":      {vals: "config-file,dbus-daemon", stop: true},
	"xvfb-run":              {vals: "e,error-file,f,auth-file,n,server-num,p,xauth-protocol,s,server-args,w,wait", stop: true},
	"ssh-agent":             {vals: "a,E,O,P,t", stop: true},
	"setpriv":               {vals: "reuid,regid,ruid,rgid,euid,egid,groups,securebits,pdeathsig,selinux-label,apparmor-profile,inh-caps,ambient-caps,bounding-set,landlock-access,landlock-rule,rlimit", stop: true},
	"numactl":               {vals: "i,interleave,N,cpunodebind,C,physcpubind,m,membind,p,preferred,preferred-many,weighted-interleave,balancing", stop: true},
	"prlimit":               {vals: "p,pid,o,output", opt: "c,core,d,data,e,nice,f,fsize,i,sigpending,l,memlock,m,rss,n,nofile,q,msgqueue,r,rtprio,s,stack,t,cpu,u,nproc,v,as,x,locks,y,rttime", stop: true},
	"fakeroot":              {vals: "l,lib,faked,i,s,b", stop: true},
	"firejail":              {stop: true},
	"pkexec":                {vals: "user", stop: true},
	"valgrind":              {stop: true},
	"faketime":              {vals: "m,f", stop: true},
	"cpulimit":              {vals: "l,limit,p,pid,e,exe", stop: true},
	"trickle":               {vals: "d,u,w,t,l,n", stop: true},
	"rlwrap":                {vals: "a,b,C,D,e,f,F,g,H,l,M,O,p,P,q,S,t,w,z,break-chars,complete-filenames,command-name,file,history-filename,logfile,prompt-colour,substitute-prompt,set-term-name,multi-line,histsize", stop: true},
	"proxychains":           {vals: "f", stop: true},
	"chpst":                 {vals: "u,U,b,e,n,l,L,m,d,o,p,f,c,r,t,/", stop: true},
	"bwrap":                 {stop: true},
	"sandbox-exec":          {vals: "f,n,p,D", stop: true},
	"perf record":           {vals: "e,event,filter,p,pid,t,tid,r,realtime,c,count,o,output,F,freq,m,mmap-pages,G,cgroup,u,uid,C,cpu,call-graph,clockid,k,switch-output,user-regs,intr-regs,aux-sample", stop: true},
	"perf stat":             {vals: "e,event,p,pid,t,tid,r,repeat,o,output,G,cgroup,C,cpu,x,field-separator,log-fd,pre,post,I,interval-print,T,transaction,M,metrics", stop: true},
	"perf trace":            {vals: "e,event,expr,p,pid,t,tid,u,uid,o,output,C,cpu,m,mmap-pages,duration,call-graph", stop: true},
	"uv run":                {vals: "with,with-editable,with-requirements,python,p,package,directory,project,env-file,index,default-index,extra-index-url,find-links,index-url,extra,group,only-group,no-group,script,module,m", stop: true},
	"poetry run":            {vals: "C,directory,P,project", stop: true},
	"conda run":             {vals: "n,name,p,prefix,cwd", stop: true},
	"direnv exec":           {stop: true},
	"mise exec":             {vals: "C,cd,j,jobs,c,command", stop: true},
	"bundle exec":           {vals: "gemfile", stop: true},
	"parallel":              {vals: "a,arg-file,d,delimiter,E,j,jobs,P,n,max-args,N,S,sshlogin,I,joblog,results,res,colsep,C,tagstring,workdir,wd,timeout,retries,memfree,load,l,L,max-lines,s,max-chars,sshloginfile,slf,env,basefile,bf,return,transfer-file,tf,trc,header,delay,halt,termseq,block,block-size,pipe-part,recstart,recend,regexp,shebang-wrap,tmpdir,tempdir,seqreplace,limit,rpl", stop: true},
}

// runC is a runRow compiled for matching.
type runC struct {
	row    *runRow
	words  [][]string // spellings of the program and of each subcommand word
	shorts string     // short options
	longs  []string   // --long options
	single []string   // -single-dash options ("+" for a leading-plus word)
	marks  []string
	stuck  []string // options whose value is optional: only a stuck one counts
	at     []synAt  // the option syntax at the row's level, by spelling
	progAt []synAt  // the program's own options, by spelling
}

var (
	// runIndex: the compiled rows by program spelling.
	runIndex map[string][]*runC
	// runArgv: programs whose operands are a command (runArgs rows with
	// no subcommand): the floor also tries every later word as the command.
	runArgv map[string]bool
	// runConfigKeys / runEnvNames: the runConfig keys (lowercase) and
	// runEnv variables.
	runConfigKeys []cfgKey
	runEnvNames   map[string]bool
)

// initRunTable compiles runTable (on the first New, with the option tables).
func initRunTable() {
	compileSyntaxes()
	runIndex = map[string][]*runC{}
	runArgv = map[string]bool{}
	runEnvNames = map[string]bool{}
	for i := range runTable {
		r := &runTable[i]
		switch r.kind {
		case runConfig:
			runConfigKeys = append(runConfigKeys, cfgKey{strings.ToLower(r.opt), r.marks})
			continue
		case runEnv:
			runEnvNames[r.opt] = true
			continue
		}
		c := &runC{row: r}
		for _, w := range strings.Fields(r.cmd) {
			c.words = append(c.words, strings.Split(w, "|"))
		}
		if r.opt != "" {
			for _, o := range strings.Split(r.opt, ",") {
				if n, ok := strings.CutSuffix(o, "?"); ok {
					o = n
					c.stuck = append(c.stuck, n)
				}
				switch {
				case o == "+" || strings.HasPrefix(o, "-"):
					c.single = append(c.single, o)
				case len(o) == 1:
					c.shorts += o
				default:
					c.longs = append(c.longs, o)
				}
			}
		}
		if r.marks != "" {
			c.marks = strings.Split(strings.ToLower(r.marks), "|")
		}
		c.compileLevels()
		for _, p := range c.words[0] {
			runIndex[p] = append(runIndex[p], c)
			if r.kind == runArgs && len(c.words) == 1 {
				runArgv[p] = true
			}
		}
	}
}

// synC is a runSyntax compiled: its lists split.
type synC struct {
	vals, opt []string
	stop      bool
}

// synAt is the syntax for one spelling of a row's program and last word.
type synAt struct {
	prog, last string
	s          *synC
}

var (
	runSyn   map[string]*synC
	emptySyn = &synC{}
)

// compileSyntaxes splits runSyntaxes' lists.
func compileSyntaxes() {
	runSyn = map[string]*synC{}
	for k, v := range runSyntaxes {
		c := &synC{stop: v.stop}
		if v.vals != "" {
			c.vals = strings.Split(v.vals, ",")
		}
		if v.opt != "" {
			c.opt = strings.Split(v.opt, ",")
		}
		runSyn[k] = c
	}
}

// lookupSyn finds the syntax for the spellings used: as used, then with
// the row's first spellings.
func lookupSyn(c *runC, prog, last string) *synC {
	canon := c.words[0][0]
	mid := ""
	for _, w := range c.words[1 : len(c.words)-1+boolInt(len(c.words) == 1)] {
		mid += " " + w[0]
	}
	if len(c.words) == 1 {
		for _, k := range []string{prog, canon} {
			if s, ok := runSyn[k]; ok {
				return s
			}
		}
		return emptySyn
	}
	for _, k := range []string{prog + mid + " " + last, canon + mid + " " + last, canon + mid + " " + c.words[len(c.words)-1][0]} {
		if s, ok := runSyn[k]; ok {
			return s
		}
	}
	return emptySyn
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compileLevels fills c.at (every spelling of the program and last word)
// and c.progAt (the program's own options, before a subcommand).
func (c *runC) compileLevels() {
	lasts := c.words[len(c.words)-1]
	if len(c.words) == 1 {
		lasts = []string{""}
	}
	for _, p := range c.words[0] {
		for _, l := range lasts {
			c.at = append(c.at, synAt{prog: p, last: l, s: lookupSyn(c, p, l)})
		}
		ps := emptySyn
		if s, ok := runSyn[p]; ok {
			ps = s
		}
		c.progAt = append(c.progAt, synAt{prog: p, s: ps})
	}
}

// syntax is the row's syntax for the spellings used.
func (c *runC) syntax(prog, last string) *synC {
	for _, a := range c.at {
		if a.prog == prog && (a.last == last || len(c.words) == 1) {
			return a.s
		}
	}
	return emptySyn
}

// progSyntax is the syntax of the program's own options.
func (c *runC) progSyntax(prog string) *synC {
	for _, a := range c.progAt {
		if a.prog == prog {
			return a.s
		}
	}
	return emptySyn
}

// runWord is an argument as the scan reads it: its value when the guard
// knows it, else its shell source (a value taken from it is code that,
// parsed again, evaluates to the same thing).
func (w *walker) runWord(a word) string {
	if a.known {
		return a.val
	}
	return w.wordCode(a)
}

// runs classifies every command argv's program runs from its arguments.
// It reports whether it found the command of a runArgs/runLine row.
func (w *walker) runs(name string, argv []word, inner func(string) ctx) bool {
	found := false
	for _, c := range runIndex[name] {
		from, last, ok := w.runLevel(c, argv)
		if !ok {
			continue
		}
		if w.runRowAt(c, argv, from, c.syntax(cmdName(argv[0]), last), inner) {
			found = true
		}
	}
	if name == "git" || name == "hub" {
		w.gitRuns(argv, inner)
	}
	return found
}

// runLevel finds where the row's options start: after the program and its
// subcommand words (git's own options before the subcommand are skipped as
// git reads them; another program's with its runSyntax). It returns the
// spelling of the last subcommand word.
func (w *walker) runLevel(c *runC, argv []word) (int, string, bool) {
	i, last := 1, ""
	for k, alts := range c.words[1:] {
		var j int
		switch {
		case k == 0 && (c.words[0][0] == "git"):
			j = gitSubcommand(argv)
		case k == 0:
			j = w.firstOperand(argv, i, c.progSyntax(cmdName(argv[0])))
		default:
			j = w.firstOperand(argv, i, emptySyn)
		}
		if j < 0 || j >= len(argv) || !argv[j].known || !contains(alts, argv[j].val) {
			return 0, "", false
		}
		last = argv[j].val
		i = j + 1
	}
	return i, last, true
}

// firstOperand is the index of the first operand at or after i, skipping
// options (and their values) by syn; -1 when a word it cannot see comes
// first.
func (w *walker) firstOperand(argv []word, i int, syn *synC) int {
	for ; i < len(argv); i++ {
		a := argv[i]
		if !a.known {
			return -1
		}
		v := a.val
		if v == "--" {
			return i + 1
		}
		if len(v) < 2 || v[0] != '-' {
			return i
		}
		if takesNext(v, syn) {
			i++
		}
	}
	return len(argv)
}

// takesNext reports whether option word v (not a row's option) takes the
// next word as its value under syn.
func takesNext(v string, syn *synC) bool {
	if strings.HasPrefix(v, "--") {
		n, _, eq := strings.Cut(v[2:], "=")
		return !eq && n != "" && optListed(syn.vals, n, true)
	}
	if optListed(syn.vals, v, false) { // a single-dash long option (-Logfile)
		return true
	}
	for j := 1; j < len(v); j++ {
		if optListed(syn.vals, v[j:j+1], false) {
			return j == len(v)-1
		}
		if optListed(syn.opt, v[j:j+1], false) {
			return false
		}
	}
	return false
}

// optListed reports whether name is in the comma-separated list; with
// prefix, a unique-looking prefix of a long name of at least 3 letters
// counts (getopt_long and parse-options take abbreviations).
func optListed(list []string, name string, prefix bool) bool {
	for _, o := range list {
		if o == name || strings.TrimPrefix(o, "-") == name && strings.HasPrefix(o, "-") && len(name) > 1 {
			return true
		}
		if prefix && len(name) >= 3 && len(o) > 1 && strings.HasPrefix(o, name) {
			return true
		}
	}
	return false
}

// longMatch reports whether --n names one of the row's long options: the
// name or (getopt_long, parse-options) a prefix of it. A prefix is taken
// even where the program would call it ambiguous: over-strict on purpose.
func longMatch(longs []string, n string) bool {
	for _, l := range longs {
		if n == l || len(n) >= 2 && strings.HasPrefix(l, n) {
			return true
		}
	}
	return false
}

// runRowAt scans argv[from:] for one row and classifies what it runs. It
// reports whether it classified an operand command.
func (w *walker) runRowAt(c *runC, argv []word, from int, syn *synC, inner func(string) ctx) bool {
	r := c.row
	operands := 0
	flag := false
	for i := from; i < len(argv); i++ {
		s := w.runWord(argv[i])
		if s == "--" && r.kind != runUntil && r.kind != runRest {
			return w.runOperands(c, argv, i+1, operands, flag, inner, runLabel(c, argv))
		}
		isOpt := len(s) > 1 && (s[0] == '-' || s[0] == '+' && contains(c.single, "+"))
		if !isOpt {
			switch {
			case r.kind == runArgs || r.kind == runLine || r.kind == runFlagLine:
				if syn.stop || operands == r.skip {
					return w.runOperands(c, argv, i, operands, flag, inner, runLabel(c, argv))
				}
				operands++
			case syn.stop:
				return false
			}
			continue
		}
		v, next, ok := c.optValue(s, syn)
		if !ok {
			if takesNext(s, syn) {
				i++
			}
			continue
		}
		label := runLabel(c, argv)
		switch {
		case r.kind == runUntil:
			w.runCommandUntil(argv, i+1, inner(label+" "+s))
			continue
		case r.kind == runRest:
			if i+1 < len(argv) {
				sub := append([]word(nil), argv[i+1:]...)
				w.simple(sub, inner(label+" "+s), segIn{raw: joinText(sub)}, "")
				if len(sub) == 1 {
					// xterm -e 'CMD ARGS': one word that is not a program is
					// given to the shell.
					w.code(w.wordCode(sub[0]), inner(label+" "+s), false)
				}
			}
			return true
		case r.kind == runFlagLine:
			flag = true
			continue
		case r.kind != runOpt:
			continue
		case next:
			if i+1 >= len(argv) {
				continue
			}
			i++
			v = w.runWord(argv[i])
		}
		w.runValue(c, v, inner(label+" "+optName(s)))
	}
	return false
}

// runLabel names the program and subcommand a row matched, for reasons.
func runLabel(c *runC, argv []word) string {
	if len(c.words) == 1 {
		return cmdName(argv[0])
	}
	return cmdName(argv[0]) + " " + strings.Join(c.words[len(c.words)-1][:1], "")
}

// optName is the option part of an option word, for a reason.
func optName(s string) string {
	if strings.HasPrefix(s, "--") {
		n, _, _ := strings.Cut(s, "=")
		return n
	}
	if len(s) > 2 && s[0] == '-' {
		return s[:2]
	}
	return s
}

// optValue reports whether option word s is one of the row's options and
// its value: stuck in s, or next (the next word).
func (c *runC) optValue(s string, syn *synC) (v string, next, ok bool) {
	if s[0] == '+' {
		return s[1:], false, true
	}
	for _, o := range c.single {
		if o == "+" {
			continue
		}
		if s == o {
			return "", true, true
		}
		if strings.HasPrefix(s, o+"=") {
			return s[len(o)+1:], false, true
		}
	}
	if strings.HasPrefix(s, "--") {
		n, val, eq := strings.Cut(s[2:], "=")
		if !longMatch(c.longs, n) {
			return "", false, false
		}
		return val, !eq && !longMatch(c.stuck, n), true
	}
	if optListed(syn.vals, s, false) {
		return "", false, false // a single-dash long option of the program
	}
	for j := 1; j < len(s); j++ {
		ch := s[j : j+1]
		if strings.Contains(c.shorts, ch) {
			if j+1 < len(s) {
				return strings.TrimPrefix(s[j+1:], "="), false, true
			}
			return "", !contains(c.stuck, ch), true
		}
		if optListed(syn.vals, ch, false) {
			return "", false, false // the rest is that option's value
		}
	}
	return "", false, false
}

// runOperands classifies the command that starts at argv[i] (runArgs,
// runLine, runFlagLine).
func (w *walker) runOperands(c *runC, argv []word, i, operands int, flag bool, inner func(string) ctx, label string) bool {
	r := c.row
	i += r.skip - operands // the operands before the command (options end at the first)
	if i < 0 {
		return false
	}
	if i >= len(argv) {
		return false
	}
	sub := append([]word(nil), argv[i:]...)
	switch {
	case r.kind == runArgs:
		w.simple(sub, inner(label), segIn{raw: joinText(sub)}, "")
	case r.kind == runLine || r.kind == runFlagLine && flag:
		code := make([]string, 0, len(sub))
		for _, a := range sub {
			code = append(code, w.wordCode(a))
		}
		w.code(strings.Join(code, " "), inner(label), false)
	default:
		return false
	}
	return true
}

// runCommandUntil classifies the command of find -exec: the words from i
// up to ";" or "+".
func (w *walker) runCommandUntil(argv []word, i int, y ctx) {
	j := i
	for j < len(argv) && argv[j].val != ";" && argv[j].val != "+" {
		j++
	}
	if j > i {
		sub := append([]word(nil), argv[i:j]...)
		w.simple(sub, y, segIn{raw: joinText(sub)}, "")
	}
}

// runValue classifies an option's value as code: all of it, or what
// follows a marker.
func (w *walker) runValue(c *runC, v string, y ctx) {
	if len(c.marks) > 0 {
		lv := strings.ToLower(v)
		at, end := -1, 0
		for _, m := range c.marks {
			if k := strings.Index(lv, m); k >= 0 && (at < 0 || k < at) {
				at, end = k, k+len(m)
			}
		}
		if at < 0 {
			return
		}
		if lv[end-1] == '(' {
			// system("CMD"): the string argument of the call.
			for _, c := range callStrings(v[at:], v[at:end-1]) {
				w.code(c, y, false)
			}
			return
		}
		v = v[end:]
	}
	if v != "" {
		w.code(v, y, false)
	}
}

// gitRuns classifies what git's own options make it run: -c KEY=VALUE and
// --config-env=KEY=VAR whose key names a command (runConfig rows), and
// ext:: URLs among its arguments (git runs them as a command line when the
// ext transport is allowed).
func (w *walker) gitRuns(argv []word, inner func(string) ctx) {
	end := gitSubcommand(argv)
	if end < 0 {
		end = len(argv) // a word git's options hide: read every one (fail closed)
	}
	for j := 1; j < len(argv); j++ {
		s := w.runWord(argv[j])
		switch {
		case j < end && s == "-c" && j+1 < len(argv):
			j++
			w.gitConfigRuns(w.runWord(argv[j]), inner("git -c"))
		case j < end && (s == "--config-env" && j+1 < len(argv) || strings.HasPrefix(s, "--config-env=")):
			spec := strings.TrimPrefix(s, "--config-env=")
			if s == "--config-env" {
				j++
				spec = w.runWord(argv[j])
			}
			if k := strings.LastIndexByte(spec, '='); k > 0 {
				if v, ok := w.vars[spec[k+1:]]; ok {
					w.gitConfigRuns(spec[:k]+"="+v, inner("git --config-env"))
				}
			}
		case argv[j].known && strings.HasPrefix(s, "ext::"):
			w.extRuns(s, inner("git ext::"))
		}
	}
}

// gitConfigRuns classifies a KEY=VALUE of git configuration whose value git
// runs (a runConfig key, or an ext:: URL anywhere in a value).
func (w *walker) gitConfigRuns(kv string, y ctx) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return
	}
	if strings.HasPrefix(v, "ext::") {
		w.extRuns(v, y)
		return
	}
	if lk := strings.ToLower(k); strings.HasPrefix(lk, "url.ext::") && (strings.HasSuffix(lk, ".insteadof") || strings.HasSuffix(lk, ".pushinsteadof")) {
		// url.ext::CMD.insteadOf=X rewrites URLs to run CMD.
		w.extRuns(k[len("url."):strings.LastIndexByte(k, '.')], y)
		return
	}
	mark, ok := gitRunsKey(k)
	if !ok || mark != "" && !strings.HasPrefix(v, mark) {
		return
	}
	if v = strings.TrimPrefix(v, "!"); v != "" {
		w.code(v, y, false)
	}
}

// gitRunsKey reports whether git runs configuration key k's value, and the
// marker the value must start with (alias.*: "!"). A "*" in a row's key
// stands for any non-empty part, dots included (subsections may hold them).
func gitRunsKey(k string) (string, bool) {
	k = strings.ToLower(k)
	for _, c := range runConfigKeys {
		pre, suf, star := strings.Cut(c.key, "*")
		if !star && k == c.key || star && len(k) > len(pre)+len(suf) && strings.HasPrefix(k, pre) && strings.HasSuffix(k, suf) {
			return c.mark, true
		}
	}
	return "", false
}

// cfgKey is a runConfig row's key (lowercase) and marker.
type cfgKey struct{ key, mark string }

// extRuns classifies an ext:: URL's command line: words split at spaces,
// "% " a space, "%%" a percent sign, %s/%S the service name.
func (w *walker) extRuns(url string, y ctx) {
	var words []word
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			v := b.String()
			words = append(words, word{val: v, text: v, lit: true, known: true})
			b.Reset()
		}
	}
	s := strings.TrimPrefix(url, "ext::")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%' && i+1 < len(s):
			i++
			switch s[i] {
			case ' ', '%':
				b.WriteByte(s[i])
			case 's':
				b.WriteString("upload-pack")
			case 'S':
				b.WriteString("git-upload-pack")
			}
		case c == ' ':
			flush()
		default:
			b.WriteByte(c)
		}
	}
	flush()
	if len(words) > 0 {
		w.simple(words, y, segIn{raw: joinText(words)}, "")
	}
}

// envRuns classifies the values of environment variables a program runs as
// a command (runEnv rows; GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n pairs and
// GIT_CONFIG_PARAMETERS naming a runConfig key), wherever they are set:
// before a command, through env or sudo, alone or exported (a later
// command of the same shell sees them).
func (w *walker) envRuns(vars []prefixVar, x ctx) {
	for _, pv := range vars {
		if !envRunsName(pv.name) {
			continue
		}
		y := ctx{wrappers: append(append([]string(nil), x.wrappers...), pv.name+"=")}
		switch {
		case runEnvNames[pv.name]:
			if v := strings.TrimLeft(pv.val, "!| "); v != "" {
				w.code(v, y, false)
			}
		case strings.HasPrefix(pv.name, "GIT_CONFIG_KEY_"):
			for _, o := range vars {
				if o.name == "GIT_CONFIG_VALUE_"+pv.name[len("GIT_CONFIG_KEY_"):] {
					w.gitConfigRuns(pv.val+"="+o.val, y)
				}
			}
		case pv.name == "GIT_CONFIG_PARAMETERS":
			for _, kv := range gitConfigParams(pv.val) {
				w.gitConfigRuns(kv, y)
			}
		}
	}
}

// envRunsName reports whether envRuns looks at variable n.
func envRunsName(n string) bool {
	return runEnvNames[n] || n == "GIT_CONFIG_PARAMETERS" || strings.HasPrefix(n, "GIT_CONFIG_KEY_")
}

// gitConfigParams splits GIT_CONFIG_PARAMETERS: shell-quoted 'KEY=VALUE'
// or 'KEY'='VALUE' entries separated by spaces.
func gitConfigParams(s string) []string {
	f, err := parse(": " + s)
	if err != nil || len(f.Stmts) != 1 {
		return []string{s} // fail closed: the whole value as one KEY=VALUE
	}
	var out []string
	ce, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	for _, a := range ce.Args[1:] {
		if v, ok := litValue(a); ok {
			out = append(out, v)
		}
	}
	return out
}

// runFlag reports whether wrapper option o of prog runs the command words
// with a shell (a runFlagLine row: sudo -s CMD…).
func runFlag(prog, o string) bool {
	for _, c := range runIndex[prog] {
		if c.row.kind == runFlagLine && (strings.Contains(c.shorts, o) && len(o) == 1 || contains(c.longs, o)) {
			return true
		}
	}
	return false
}

// ExecOption is one row of the table of arguments and options that a
// program runs as a command (docs/shellguard.md, "Programs that run a
// command"), for tests and documentation outside the package.
type ExecOption struct {
	Command string // the program and subcommand ("git grep"); "|" separates spellings
	Option  string // the option(s), the configuration key or the variable
	Kind    string // option, operands, line, until, flag-line, config, env, wrapper, rest
	Skip    int    // operands before the command
	Marks   string // markers the value runs after ("!")
	row     runRow
}

var kindNames = map[runKind]string{runOpt: "option", runArgs: "operands", runLine: "line", runUntil: "until",
	runFlagLine: "flag-line", runConfig: "config", runEnv: "env", runPeel: "wrapper", runRest: "rest"}

// ExecOptions lists the table.
func ExecOptions() []ExecOption {
	out := make([]ExecOption, len(runTable))
	for i, r := range runTable {
		out[i] = ExecOption{Command: r.cmd, Option: r.opt, Kind: kindNames[r.kind], Skip: r.skip, Marks: r.marks, row: r}
	}
	return out
}

// Examples builds commands that carry payload (a command line) through
// this row, in every spelling it names.
func (o ExecOption) Examples(payload string) []string { return o.row.examples(payload) }

// examples builds, from one runTable row, commands that carry payload
// (a command line) in every spelling the row names: each spelling of the
// program and subcommand, each option in short, stuck, long, --opt=value
// and single-dash forms.
func (r runRow) examples(payload string) []string {
	q := "'" + strings.ReplaceAll(payload, "'", `'\''`) + "'"
	var out []string
	progs := spellings(r.cmd)
	val := payload
	if r.marks != "" {
		m := strings.Split(r.marks, "|")[0]
		val = m + payload
		if strings.HasSuffix(m, "(") {
			val = m + `"` + payload + `")`
		}
	}
	qv := "'" + strings.ReplaceAll(val, "'", `'\''`) + "'"
	skip := strings.Repeat(" x", r.skip)
	for _, p := range progs {
		switch r.kind {
		case runOpt, runFlagLine, runRest, runUntil:
			out = r.optSpellings(out, p, qv)
			if r.kind == runFlagLine {
				for i := range out {
					out[i] += skip
				}
			}
			if r.kind == runRest || r.kind == runUntil {
				// The command as words, not one quoted word.
				for i := range out {
					out[i] = strings.Replace(out[i], qv, payload, 1)
					if r.kind == runUntil {
						out[i] += ` \;`
					}
				}
			}
		case runArgs, runPeel:
			out = append(out, p+skip+" "+payload)
			if r.kind == runArgs && r.skip == 0 {
				out = append(out, p+" -- "+payload)
			}
		case runLine:
			out = append(out, p+skip+" "+q, p+skip+" "+payload)
		case runConfig:
			k := strings.ReplaceAll(r.opt, "*", "x")
			out = append(out,
				"git -c "+k+"="+qv+" log",
				"X="+qv+" git --config-env="+k+"=X log",
				"git config "+k+" "+qv,
				"git config --global "+k+" "+qv,
				"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="+k+" GIT_CONFIG_VALUE_0="+qv+" git log",
				`GIT_CONFIG_PARAMETERS="'`+k+"="+strings.Trim(qv, "'")+`'" git log`)
			return out
		case runEnv:
			return []string{
				r.opt + "=" + qv + " " + p,
				"env " + r.opt + "=" + qv + " " + p,
				"sudo " + r.opt + "=" + qv + " " + p,
				"export " + r.opt + "=" + qv + "; " + p,
				r.opt + "=" + qv + "; " + p,
			}
		}
	}
	return out
}

// optSpellings appends to out the ways to give prog the option(s) of r
// with the value qv: -o V, -oV, --opt V, --opt=V, +V, as the row allows.
func (r runRow) optSpellings(out []string, p, qv string) []string {
	for _, o := range strings.Split(r.opt, ",") {
		if n, ok := strings.CutSuffix(o, "?"); ok {
			// an optional value: only stuck
			if len(n) == 1 {
				out = append(out, p+" -"+n+qv)
			} else {
				out = append(out, p+" --"+n+"="+qv)
			}
			continue
		}
		switch {
		case o == "+":
			out = append(out, p+" '+"+strings.Trim(qv, "'")+"'")
		case strings.HasPrefix(o, "-"):
			out = append(out, p+" "+o+" "+qv)
		case len(o) == 1:
			out = append(out, p+" -"+o+" "+qv)
			if r.kind == runOpt {
				out = append(out, p+" -"+o+qv)
			}
		default:
			out = append(out, p+" --"+o+" "+qv)
			if r.kind == runOpt {
				out = append(out, p+" --"+o+"="+qv)
			}
		}
	}
	return out
}

// spellings expands "a|b c|d" into every combination ("a c", "a d", …).
func spellings(cmd string) []string {
	out := []string{""}
	for _, w := range strings.Fields(cmd) {
		var next []string
		for _, pre := range out {
			for _, alt := range strings.Split(w, "|") {
				next = append(next, strings.TrimSpace(pre+" "+alt))
			}
		}
		out = next
	}
	return out
}

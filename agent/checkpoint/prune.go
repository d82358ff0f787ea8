package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// PruneReport says what Prune dropped.
type PruneReport struct {
	Dropped int   // checkpoints
	Before  int64 // bytes of the shadow repositories before
	After   int64 // and after
}

// Prune drops the checkpoints of every session older than MaxAge and then,
// while the shadow repositories use more than MaxBytes, the oldest others
// (the redo records that need them too), and lets git delete the objects
// no checkpoint keeps any more (loose objects younger than a day stay: a
// running turn's first snapshot has no ref yet).
func Prune(ctx context.Context, o Options) (PruneReport, error) {
	o = o.withDefaults()
	base := filepath.Join(o.StateDir, "checkpoints")
	rep := PruneReport{Before: dirSize(filepath.Join(base, "repos"))}
	rep.After = rep.Before
	names, _ := filepath.Glob(filepath.Join(base, "sessions", "*.json"))
	type item struct {
		file string
		j    *journal
		i    int
	}
	journals := map[string]*journal{}
	var all []item
	for _, name := range names {
		data, err := os.ReadFile(name)
		var j journal
		if err != nil || json.Unmarshal(data, &j) != nil {
			continue
		}
		journals[name] = &j
		for i := range j.Checkpoints {
			all = append(all, item{name, &j, i})
		}
	}
	slices.SortFunc(all, func(a, b item) int {
		return a.j.Checkpoints[a.i].Time.Compare(b.j.Checkpoints[b.i].Time)
	})
	cutoff := o.Now().Add(-o.MaxAge)
	excess := rep.Before - o.MaxBytes
	drop := map[string][]int{} // journal file → checkpoint numbers
	for _, it := range all {
		c := it.j.Checkpoints[it.i]
		if !c.Time.Before(cutoff) && excess <= 0 {
			break
		}
		drop[it.file] = append(drop[it.file], c.N)
		excess -= c.Bytes
		rep.Dropped++
	}
	roots := looseRoots(base)
	if rep.Dropped == 0 && len(roots) == 0 {
		return rep, nil
	}
	for file, nums := range drop {
		j := journals[file]
		if err := dropCheckpoints(ctx, o, file, j, nums); err != nil {
			return rep, err
		}
		roots[j.Root] = true
	}
	for root := range roots {
		r, err := Open(o, root)
		if err != nil {
			continue // the project is gone: its repository stays until removed by hand
		}
		if err := r.gc(ctx); err != nil {
			return rep, err
		}
	}
	rep.After = dirSize(filepath.Join(base, "repos"))
	return rep, nil
}

// looseLimit is the count of loose objects past which Prune packs a
// shadow repository (a project's first snapshot writes one per file).
const looseLimit = 2000

// looseRoots are the projects whose shadow repository holds more than
// looseLimit loose objects.
func looseRoots(base string) map[string]bool {
	roots := map[string]bool{}
	repos, _ := filepath.Glob(filepath.Join(base, "repos", "*"))
	for _, dir := range repos {
		n := 0
		fans, _ := filepath.Glob(filepath.Join(dir, "objects", "[0-9a-f][0-9a-f]"))
		for _, fan := range fans {
			names, _ := os.ReadDir(fan)
			n += len(names)
		}
		if n <= looseLimit {
			continue
		}
		if root, err := os.ReadFile(filepath.Join(dir, "root")); err == nil {
			roots[strings.TrimSpace(string(root))] = true
		}
	}
	return roots
}

// dropCheckpoints removes checkpoints nums (and the redo records that need
// them) from the journal in file, and their refs.
func dropCheckpoints(ctx context.Context, o Options, file string, j *journal, nums []int) error {
	var refs bytes.Buffer
	keep := j.Checkpoints[:0]
	for _, c := range j.Checkpoints {
		if slices.Contains(nums, c.N) {
			fmt.Fprintf(&refs, "delete refs/oceancode/%s/%d-0\ndelete refs/oceancode/%s/%d-1\n", j.Session, c.N, j.Session, c.N)
			continue
		}
		keep = append(keep, c)
	}
	j.Checkpoints = keep
	redo := j.Redo[:0]
	for k, u := range j.Redo {
		if slices.ContainsFunc(u.Checkpoints, func(n int) bool { return slices.Contains(nums, n) }) {
			fmt.Fprintf(&refs, "delete refs/oceancode/%s/u%d-0\n", j.Session, k+1)
			continue
		}
		redo = append(redo, u)
	}
	j.Redo = redo
	r, err := Open(o, j.Root)
	if err == nil {
		if _, err := r.git(ctx, &refs, "update-ref", "--stdin"); err != nil && !strings.Contains(err.Error(), "not exist") {
			return err
		}
	}
	s := &Session{repo: &Repo{o: o}, id: j.Session}
	if len(j.Checkpoints) == 0 && len(j.Redo) == 0 {
		return os.Remove(file)
	}
	return s.save(j)
}

// gc lets git delete what no ref keeps, under the repository's lock.
func (r *Repo) gc(ctx context.Context) error {
	if err := r.lock.lock(); err != nil {
		return err
	}
	defer r.lock.unlock()
	_, err := r.git(ctx, nil, "gc", "--quiet", "--prune=1.day.ago")
	return err
}

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/oceancode/oceancode/agent/session"
)

// doctorSessions reports orphaned sessions and crash reports.
type doctorSessions struct {
	DB      string                    `json:"db"`
	Stats   *session.Stats            `json:"stats,omitempty"`
	Orphans []session.Orphan          `json:"orphans"`
	Crashes []session.CrashReportInfo `json:"crash_reports"`
	Error   string                    `json:"error,omitempty"`
}

func doctorSessionsOf(app *App) *doctorSessions {
	d := &doctorSessions{DB: sessionsDB(app), Orphans: []session.Orphan{}, Crashes: []session.CrashReportInfo{}}
	ctx := context.Background()
	if _, err := os.Stat(d.DB); err == nil {
		st, err := session.Open(ctx, d.DB)
		if err != nil {
			d.Error = err.Error()
		} else {
			defer st.Close()
			if d.Stats, err = st.Stats(ctx); err != nil {
				d.Error = err.Error()
			}
			if o, err := st.Orphans(ctx); err != nil {
				d.Error = err.Error()
			} else if o != nil {
				d.Orphans = o
			}
		}
	}
	if c, err := session.CrashReports(crashDir(app)); err == nil && c != nil {
		d.Crashes = c
	}
	return d
}

func (d *doctorSessions) problems() []string {
	var out []string
	if d.Error != "" {
		out = append(out, "session store "+d.DB+": "+d.Error)
	}
	for _, o := range d.Orphans {
		out = append(out, fmt.Sprintf("session %s was left running (%s): resume it with 'oceancode run --session %s …' or close it with 'oceancode session close %s'", o.ID, o.Reason, o.ID, o.ID))
	}
	for _, c := range d.Crashes {
		out = append(out, fmt.Sprintf("crash report %s (%s): %s — attach it to a bug report, then delete it", c.Path, c.Time.Local().Format("2006-01-02 15:04"), c.Panic))
	}
	return out
}

func (d *doctorSessions) print(w io.Writer) {
	n := 0
	if d.Stats != nil {
		n = d.Stats.Sessions
	}
	fmt.Fprintf(w, "Sessions       %d stored, %d orphaned, %d crash report(s)  (%s)\n", n, len(d.Orphans), len(d.Crashes), d.DB)
}

package sessionconfig

import (
	"time"

	"github.com/oceancode/oceancode/agent/checkpoint"
	"github.com/oceancode/oceancode/layers"
)

// CheckpointOptions are the checkpoints a session keeps (runner.Options.
// Checkpoints) from the checkpoints.* keys and the state dir: nil when
// checkpoints.enabled is false or there is no state dir.
func CheckpointOptions(res *layers.Resolved, getenv func(string) string) (*checkpoint.Options, error) {
	on, _, set, err := CheckpointsEnabled.Get(res)
	if err != nil {
		return nil, err
	}
	state := layers.StateDir(getenv)
	if (set && !on) || state == "" {
		return nil, nil
	}
	o := &checkpoint.Options{StateDir: state}
	for _, k := range []struct {
		key IntKey
		set func(int)
	}{
		{CheckpointsMaxMB, func(v int) { o.MaxBytes = int64(v) << 20 }},
		{CheckpointsMaxFileMB, func(v int) { o.MaxFileBytes = int64(v) << 20 }},
		{CheckpointsMaxAgeDays, func(v int) { o.MaxAge = time.Duration(v) * 24 * time.Hour }},
	} {
		v, _, ok, err := k.key.Get(res)
		if err != nil {
			return nil, err
		}
		if ok && v > 0 {
			k.set(v)
		}
	}
	return o, nil
}

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/oceancode/oceancode/internal/exitcode"
)

// EnvPassphrase is the environment variable automation uses for passphrases.
const EnvPassphrase = "OCEANADMIN_PASSPHRASE"

// passphraseSource reads passphrases from, in order: --passphrase-file,
// $OCEANADMIN_PASSPHRASE, the terminal.
type passphraseSource struct {
	app  *App
	file string
}

func (p passphraseSource) get(prompt string, confirm bool) ([]byte, error) {
	if p.file != "" {
		data, err := os.ReadFile(p.file)
		if err != nil {
			return nil, fmt.Errorf("read passphrase file %s: %w", p.file, err)
		}
		pw := bytes.TrimRight(data, "\r\n")
		if len(pw) == 0 {
			return nil, exitcode.With(exitcode.Usage, fmt.Errorf("read passphrase file %s: the file is empty", p.file))
		}
		return pw, nil
	}
	if v := p.app.Getenv(EnvPassphrase); v != "" {
		return []byte(v), nil
	}
	fd, ok := ttyFD(p.app)
	if !ok {
		return nil, exitcode.With(exitcode.Usage, errors.New("a passphrase is needed and there is no terminal to ask: pass --passphrase-file FILE or set $"+EnvPassphrase+" (or --unencrypted for keygen)"))
	}
	fmt.Fprint(p.app.Stderr, prompt)
	pw, err := term.ReadPassword(fd)
	fmt.Fprintln(p.app.Stderr)
	if err != nil {
		return nil, fmt.Errorf("read passphrase: %w", err)
	}
	if len(pw) == 0 {
		return nil, exitcode.With(exitcode.Usage, errors.New("read passphrase: empty passphrase (use --unencrypted to write an unencrypted key on purpose)"))
	}
	if confirm {
		fmt.Fprint(p.app.Stderr, "Repeat passphrase: ")
		again, err := term.ReadPassword(fd)
		fmt.Fprintln(p.app.Stderr)
		if err != nil {
			return nil, fmt.Errorf("read passphrase: %w", err)
		}
		if !bytes.Equal(pw, again) {
			return nil, exitcode.With(exitcode.Usage, errors.New("read passphrase: the two passphrases differ"))
		}
	}
	return pw, nil
}

func ttyFD(app *App) (int, bool) {
	f, ok := app.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	return int(f.Fd()), true
}

func trimComment(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\n", " ")) }

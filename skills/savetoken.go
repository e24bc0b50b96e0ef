package skills

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
)

// The save token tells whether a cached version of the library file is
// still the current one. (Inode, size and mtime do not prove it: see
// sameVersion.) It is kept in the lock file "<library>.lock" itself, which
// only the lock holder writes: 16 random hex digits, a space, a state and a
// newline, always 19 bytes, written in place. Every save writes a new token
// in state "p" (pending) before it replaces the file and sets it to "c"
// (committed) after. A version read after the lock file held a committed
// token is the version that token names, or a later one; a cached version
// is current while the lock file still holds its token, committed: any
// save since would have changed it first (so a later version read under an
// earlier token is never trusted, just read again).
//
// A save killed after its pending token leaves it pending: readers then read
// the file every time (comparing its content id, decoding only when it
// changed), until the next writer, holding the lock, writes a new committed
// token. So does a lock file without a token (new, or left by an older
// lppctl), except that readers without any token fall back to trusting the
// stat, as older versions did. Older lppctl versions take the lock but do
// not change the token; their saves still give the file a new inode, which
// is checked as well.

const saveTokenLen = 16

// saveToken is the content of the lock file.
type saveToken struct {
	id        string // "" when the lock file holds none
	committed bool
}

// proves reports whether t proves that a version read under tok is current.
func (t saveToken) proves(tok string) bool { return t.committed && t.id != "" && t.id == tok }

// readSaveToken returns the token in the lock file lk.
func readSaveToken(lk *os.File) saveToken {
	var buf [saveTokenLen + 3]byte
	n, _ := lk.ReadAt(buf[:], 0)
	if n != len(buf) || buf[saveTokenLen] != ' ' || buf[saveTokenLen+2] != '\n' {
		return saveToken{}
	}
	if _, err := hex.DecodeString(string(buf[:saveTokenLen])); err != nil {
		return saveToken{}
	}
	switch buf[saveTokenLen+1] {
	case 'p':
		return saveToken{id: string(buf[:saveTokenLen])}
	case 'c':
		return saveToken{id: string(buf[:saveTokenLen]), committed: true}
	}
	return saveToken{}
}

// readSaveTokenAt returns the token in the lock file at path, without
// taking the lock; none when the file cannot be read.
func readSaveTokenAt(path string) saveToken {
	f, err := os.Open(path)
	if err != nil {
		return saveToken{}
	}
	defer f.Close()
	return readSaveToken(f)
}

// writeSaveToken writes tok into the lock file lk (held), pending or committed.
func writeSaveToken(lk *os.File, tok string, committed bool) error {
	state := byte('p')
	if committed {
		state = 'c'
	}
	if _, err := lk.WriteAt(append([]byte(tok), ' ', state, '\n'), 0); err != nil {
		return fmt.Errorf("cannot write the save token: %w", err)
	}
	return nil
}

// randomID returns 16 random hex digits.
func randomID() string {
	var b [saveTokenLen / 2]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

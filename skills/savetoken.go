package skills

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
)

// The save token tells a writer holding the library lock whether its cached
// version of the library file is still the current one. It is 16 random hex
// digits and a newline, kept in the lock file "<library>.lock" itself, which
// only the lock holder writes. Every save writes a new token before it
// replaces the file, so a writer trusts its cached version only when the
// version carries the token the lock file holds: no save happened since it
// was read. (Inode, size and mtime alone do not prove that: see
// sameVersion.) A save killed between the token and the rename leaves a
// token no version carries: the next writer reads the file again. A lock
// file without a token (new, or left by an older lppctl) gets one from the
// first writer that reads the file under the lock. Older lppctl versions
// take the lock but do not change the token; their saves still give the
// file a new inode, which is checked as well.

const saveTokenLen = 16

// readSaveToken returns the token in the lock file lk, "" when there is none.
func readSaveToken(lk *os.File) string {
	var buf [saveTokenLen + 1]byte
	n, _ := lk.ReadAt(buf[:], 0)
	if n != len(buf) || buf[saveTokenLen] != '\n' {
		return ""
	}
	if _, err := hex.DecodeString(string(buf[:saveTokenLen])); err != nil {
		return ""
	}
	return string(buf[:saveTokenLen])
}

// newSaveToken writes a new random token into the lock file lk (held) and
// returns it. The lock file holds nothing else, so the token is written in
// place: it is always 17 bytes long.
func newSaveToken(lk *os.File) (string, error) {
	tok := randomID()
	if _, err := lk.WriteAt([]byte(tok+"\n"), 0); err != nil {
		return "", fmt.Errorf("cannot write the save token: %w", err)
	}
	return tok, nil
}

// randomID returns 16 random hex digits.
func randomID() string {
	var b [saveTokenLen / 2]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

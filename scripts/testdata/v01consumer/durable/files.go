package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// checkpoints is an eino checkpoint store (compose.CheckPointStore) that
// keeps one file per checkpoint id in a directory. A checkpoint is
// replaced atomically, so a crash leaves the old one or the new one, never
// half of either.
type checkpoints struct{ dir string }

// path names the file of id. The id is hex-encoded: whatever it holds, it
// cannot name a file outside dir.
func (c *checkpoints) path(id string) string {
	return filepath.Join(c.dir, hex.EncodeToString([]byte(id))+".ckpt")
}

func (c *checkpoints) Get(_ context.Context, id string) ([]byte, bool, error) {
	b, err := os.ReadFile(c.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

func (c *checkpoints) Set(_ context.Context, id string, b []byte) error {
	return writeFileAtomic(c.path(id), b)
}

// remove deletes the checkpoint of id, if any. (Eino's store interface has
// no Delete: the program calls it for runs that finished.)
func (c *checkpoints) remove(id string) error {
	err := os.Remove(c.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// writeFileAtomic replaces path with b: write a temporary file beside it,
// sync it, rename it over path, sync the directory. Readers see the old
// content or the new, and after a crash the rename either happened or not.
func writeFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// saveJSON and loadJSON keep a paused run's state (see pausedEino,
// pausedGenkit). loadJSON reports false when there is none.
func saveJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

func loadJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(b, v)
}

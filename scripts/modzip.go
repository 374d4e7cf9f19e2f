//go:build ignore

// Modzip writes a module zip, as a module proxy serves it: the files named on
// standard input (one path per line, relative to DIR) under the prefix
// MODULE@VERSION/. scripts/check-install uses it to serve the checkout
// from a file-based GOPROXY.
//
// Usage: go run scripts/modzip.go DIR MODULE@VERSION OUT.zip < files
package main

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/modzip.go DIR MODULE@VERSION OUT.zip < files")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3], os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
}

func run(dir, prefix, out string, files io.Reader) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	sc := bufio.NewScanner(files)
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" {
			continue
		}
		if err := add(zw, filepath.Join(dir, name), prefix+"/"+filepath.ToSlash(name)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func add(zw *zip.Writer, path, name string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	w, err := zw.Create(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, src)
	return err
}

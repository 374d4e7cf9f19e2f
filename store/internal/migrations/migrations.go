// Package migrations reads the schema migrations a database store embeds:
// files migrations/NNN_name.sql, numbered from 001 without gaps, whose
// count is the schema version they bring a database to.
//
//	//go:embed migrations/*.sql
//	var files embed.FS
//	ms := migrations.Load(files) // ms[v:] are what a database at version v lacks
package migrations

import (
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one migration file.
type Migration struct {
	Name string // its file name, for errors
	SQL  string
}

// Load returns the migrations of fsys in order. Misnumbered or unreadable
// files are a programmer's error: it panics.
func Load(fsys fs.FS) []Migration {
	files, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		panic(err)
	}
	sort.Strings(files)
	ms := make([]Migration, len(files))
	for i, f := range files {
		name := path.Base(f)
		n, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil || n != i+1 {
			panic("migration files must be numbered 001, 002, ...: " + f)
		}
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			panic(err)
		}
		ms[i] = Migration{Name: name, SQL: string(b)}
	}
	return ms
}

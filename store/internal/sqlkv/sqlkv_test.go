package sqlkv

import (
	"reflect"
	"strings"
	"testing"
)

func TestNumbered(t *testing.T) {
	for in, want := range map[string]string{
		"":                             "",
		"SELECT 1":                     "SELECT 1",
		"a = ?":                        "a = $1",
		"VALUES (?, ?, ?) WHERE x = ?": "VALUES ($1, $2, $3) WHERE x = $4",
	} {
		if got := numbered(in); got != want {
			t.Errorf("numbered(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStatements: every statement is numbered for PostgreSQL, none keeps
// a "?", and the key order takes the dialect's collation.
func TestStatements(t *testing.T) {
	pg := New(nil, Dialect{Numbered: true, Collate: ` COLLATE "C"`})
	lite := New(nil, Dialect{})
	for _, q := range []*statements{&pg.q, &lite.q} {
		if q.sessionsPut == "" || q.secretsGet == "" {
			t.Fatal("a statement is empty")
		}
	}
	v, sv := reflect.ValueOf(pg.q), reflect.ValueOf(base)
	for i := range v.NumField() {
		s := v.Field(i).String()
		if strings.Contains(s, "?") || !strings.Contains(sv.Field(i).String(), "?") && s != sv.Field(i).String()+pgCollate(v.Type().Field(i).Name) {
			t.Errorf("PostgreSQL %s = %q", v.Type().Field(i).Name, s)
		}
	}
	if got, want := pg.q.standingPut, "VALUES ($1, $2, $3, $4, $5, $6, $7)"; !strings.Contains(got, want) {
		t.Errorf("standingPut = %s, want it to hold %s", got, want)
	}
	if !strings.HasSuffix(pg.q.pinsAll, `ORDER BY key COLLATE "C"`) || !strings.HasSuffix(lite.q.pinsAll, "ORDER BY key") {
		t.Errorf("pinsAll: PostgreSQL %q, SQLite %q", pg.q.pinsAll, lite.q.pinsAll)
	}
	if lite.q.sessionsGet != base.sessionsGet {
		t.Errorf("SQLite statement changed: %q", lite.q.sessionsGet)
	}
}

func pgCollate(field string) string {
	if field == "pinsAll" {
		return ` COLLATE "C"`
	}
	return ""
}

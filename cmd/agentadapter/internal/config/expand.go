package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// expand replaces variables in every string value (never in keys, and
// after parsing, so a value cannot inject JSON):
//
//	${VAR}, ${env:VAR}    the environment; unset is an error
//	${VAR:-default}       the environment, or default when unset or empty
//	${input:id}           a VS Code input: AGENTADAPTER_INPUT_<ID>, or prompted
//	${workspaceFolder}    the folder of the file (the parent of .vscode/)
//	${fileDirname}        the folder of the file
//	${userHome}           the user's home directory
//	$$                    a literal $
func (l *loader) expand(file string, n *node, ws, dir string) error {
	switch n.kind {
	case '{':
		for _, k := range n.keys {
			if err := l.expand(file, n.obj[k], ws, dir); err != nil {
				return err
			}
		}
	case '[':
		for _, c := range n.arr {
			if err := l.expand(file, c, ws, dir); err != nil {
				return err
			}
		}
	case 's':
		s, err := l.expandString(n.str, ws, dir)
		if err != nil {
			return &Error{File: file, Line: n.line, Path: n.path, Msg: err.Error()}
		}
		n.str = s
	}
	return nil
}

func (l *loader) expandString(s, ws, dir string) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if s[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		if s[i+1] != '{' {
			b.WriteByte(c)
			continue
		}
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			return "", fmt.Errorf("unclosed variable in %q", s)
		}
		expr := s[i+2 : i+2+end]
		v, err := l.variable(expr, ws, dir)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		i += 2 + end
	}
	return b.String(), nil
}

var varNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (l *loader) variable(expr, ws, dir string) (string, error) {
	switch expr {
	case "workspaceFolder", "workspaceRoot":
		return ws, nil
	case "fileDirname":
		return dir, nil
	case "userHome":
		return os.UserHomeDir()
	case "pathSeparator", "/":
		return string(os.PathSeparator), nil
	}
	if id, ok := strings.CutPrefix(expr, "input:"); ok {
		return l.input(id)
	}
	name, def, hasDef := strings.Cut(strings.TrimPrefix(expr, "env:"), ":-")
	if !varNameRE.MatchString(name) {
		return "", fmt.Errorf("unknown variable %q", "${"+expr+"}")
	}
	v, ok := l.lookup(name)
	if hasDef && v == "" {
		return def, nil
	}
	if !ok {
		return "", fmt.Errorf("undefined variable ${%s}: set %s in the environment or write ${%s:-default}", expr, name, name)
	}
	return v, nil
}

func (l *loader) input(id string) (string, error) {
	if v, ok := l.inputs[id]; ok {
		return v, nil
	}
	def, ok := l.inputDefs[id]
	if !ok && !varNameRE.MatchString(strings.ReplaceAll(id, "-", "_")) {
		return "", fmt.Errorf("unknown variable %q", "${input:"+id+"}")
	}
	if !ok {
		return "", fmt.Errorf("undefined variable ${input:%s}: no input with that id in \"inputs\"", id)
	}
	env := InputEnv(id)
	if v, ok := l.lookup(env); ok {
		l.inputs[id] = v
		return v, nil
	}
	if l.prompt != nil {
		v, err := l.prompt(def)
		if err != nil {
			return "", fmt.Errorf("input %q: %v", id, err)
		}
		l.inputs[id] = v
		return v, nil
	}
	if def.Default != "" {
		l.inputs[id] = def.Default
		return def.Default, nil
	}
	return "", fmt.Errorf("input %q is not set: set %s in the environment (or run on a terminal to be asked)", id, env)
}

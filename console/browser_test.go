package console_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds the browser: $CHROMIUM (set by scripts/test), then
// the usual names on PATH. Under CI a missing browser fails the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium found (set CHROMIUM or run scripts/setup-chromium); browser tests never skip under CI")
	}
	t.Skip("no Chromium found; run scripts/setup-chromium")
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile and returns
// its first context; the browser ends with the test.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("browser test in -short mode")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	// The first context starts the browser; tabs open browser contexts of
	// their own inside it.
	root, cancel2 := chromedp.NewContext(alloc)
	t.Cleanup(cancel2)
	if err := chromedp.Do(root); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return root
}

// tab opens a page in a browser context of its own (its own cookies), as
// one operator, signed in with token ("" for anonymous mode).
func (e *env) tab(t *testing.T, alloc context.Context, token string) context.Context {
	t.Helper()
	return signIn(t, alloc, e.base, token)
}

// signIn opens the console at base in a browser context of its own and
// signs in with token.
func signIn(t *testing.T, alloc context.Context, base, token string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// Bound every browser step of the test.
	ctx, cancel2 := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancel2)
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(base + "login"),
	}
	if token != "" {
		steps = append(steps, chromedp.SendKeys(chromedp.ID("token"), token))
	}
	steps = append(steps, chromedp.Click(chromedp.ID("signin")), chromedp.WaitVisible(chromedp.ID("operator")))
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("signing in: %v", err)
	}
	return ctx
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// screenshot saves the viewport (1280x800) under testdata/screenshots.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join("testdata", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unlabelled lists the visible form controls and links a screen reader
// could not name: every control needs a label.
const unlabelled = `(() => {
  const bad = [];
  for (const el of document.querySelectorAll("input, select, textarea, button, a[href]")) {
    if (el.type === "hidden") continue;
    const named = (el.labels && el.labels.length > 0 && [...el.labels].some(l => l.textContent.trim() !== "")) ||
      el.getAttribute("aria-label") || el.getAttribute("aria-labelledby") ||
      ((el.tagName === "BUTTON" || el.tagName === "A") && el.textContent.trim() !== "");
    if (!named) bad.push(el.outerHTML.slice(0, 120));
  }
  return bad;
})()`

func checkLabels(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	if bad := eval[[]string](t, ctx, unlabelled); len(bad) > 0 {
		t.Errorf("%s: controls without a label:\n%s", page, strings.Join(bad, "\n"))
	}
}

// tabTo presses Tab until the element with id has the focus.
func tabTo(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	var seen []string
	for range 60 {
		do(t, ctx, chromedp.KeyEvent("\t"))
		got := eval[string](t, ctx, `document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ""`)
		if got == id {
			return
		}
		seen = append(seen, got)
	}
	t.Fatalf("Tab never reached #%s; focus went through %v", id, seen)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func sel(format string, args ...any) chromedp.CSS { return chromedp.CSS(fmt.Sprintf(format, args...)) }

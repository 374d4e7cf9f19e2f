package toolsearch

// FoundRuns returns the number of runs ix remembers found names of.
func FoundRuns(ix *Index) int {
	ix.found.mu.Lock()
	defer ix.found.mu.Unlock()
	return len(ix.found.runs)
}

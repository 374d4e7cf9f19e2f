package kit

// TriageHold is [Triage] when hold is set, else [TriagePayload]: for an
// integration whose framework holds a run for approval only when it is
// configured to (a graph with a checkpoint store).
func TriageHold(err error, hold bool) Outcome {
	if hold {
		return Triage(err)
	}
	return TriagePayload(err)
}

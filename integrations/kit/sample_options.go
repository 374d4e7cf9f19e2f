package kit

// ModelOptions returns the model options of a framework for the limits
// req sets, in this order: maxTokens(req.MaxTokens) when it is positive,
// stop(req.StopSequences) when there are any, temperature(req.Temperature)
// when it is not zero. Limits left unset keep the model's defaults.
func ModelOptions[O any](req *SampleRequest, maxTokens func(int) O, stop func([]string) O, temperature func(float64) O) []O {
	var opts []O
	if req.MaxTokens > 0 {
		opts = append(opts, maxTokens(int(req.MaxTokens)))
	}
	if len(req.StopSequences) > 0 {
		opts = append(opts, stop(req.StopSequences))
	}
	if req.Temperature != 0 {
		opts = append(opts, temperature(req.Temperature))
	}
	return opts
}

package kit

// SampleOptions returns a framework's model options for the settings of
// req, in this order: maxTokens(req.MaxTokens) when it is above zero,
// stop(req.StopSequences) when there are some, temperature(req.Temperature)
// when it is not zero. A setting left zero keeps the model's default.
func SampleOptions[O any](req *SampleRequest, maxTokens func(int) O, stop func([]string) O, temperature func(float64) O) []O {
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

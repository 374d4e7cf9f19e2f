package kit

import "fmt"

// Messages converts the messages of req into a framework's messages: one
// each, made by part, preceded by system(req.SystemPrompt) when the prompt
// is set and system is not nil (a framework that takes the prompt as an
// option passes nil). A part of a kind other than text, image or audio is
// an error, as is an error of part; both name the message.
func Messages[M any](req *SampleRequest, system func(prompt string) M, part func(Role, Part) (M, error)) ([]M, error) {
	msgs := make([]M, 0, len(req.Messages)+1)
	if req.SystemPrompt != "" && system != nil {
		msgs = append(msgs, system(req.SystemPrompt))
	}
	for i, m := range req.Messages {
		switch m.Content.Kind {
		case PartText, PartImage, PartAudio:
		default:
			return nil, fmt.Errorf("message %d: content %q cannot be sent to the model", i, m.Content.Kind)
		}
		msg, err := part(m.Role, m.Content)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}

// ChooseModel returns the first of req's model hints that has reports
// (a model the Sampler can answer with), else fallback.
func ChooseModel(req *SampleRequest, has func(name string) bool, fallback string) string {
	for _, h := range req.ModelHints {
		if has(h) {
			return h
		}
	}
	return fallback
}

// StopReasonOf maps a framework's finish reason to a [StopReason]: the
// spellings of a reply cut by its token limit ("length", "max_tokens",
// "MAX_TOKENS") are StopMaxTokens, anything else StopEndTurn.
func StopReasonOf(finish string) StopReason {
	switch finish {
	case "length", "max_tokens", "MAX_TOKENS":
		return StopMaxTokens
	}
	return StopEndTurn
}

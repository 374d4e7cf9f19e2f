package kit

import "context"

// A Sampler answers a sampling request (an MCP server asking the client's
// model for a completion) with a model of the application's own. It is
// neutral: each framework integration makes one from its model, and
// mcpadapter.Sample turns one into the MCP client's sampling handler, so
// that no framework module depends on the MCP SDK.
//
// A Sampler returns an error for a request it cannot serve (a content type
// its model does not take, an assistant image); the server receives it as
// an error.
type Sampler func(ctx context.Context, req *SampleRequest) (*SampleResult, error)

// Role is who says a sampled message.
type Role string

// The roles of a sampled message.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// PartKind is what a [Part] carries.
type PartKind string

// The kinds of a [Part]. A part of another kind (MCP may add some) is
// one the model cannot take: a Sampler returns an error for it.
const (
	PartText  PartKind = "text"
	PartImage PartKind = "image"
	PartAudio PartKind = "audio"
)

// Part is the content of one message: text, or an image or audio clip.
type Part struct {
	Kind PartKind
	// Text is the text of a PartText.
	Text string
	// MIMEType and Data are the media of a PartImage or PartAudio.
	MIMEType string
	Data     []byte
}

// Message is one message of the conversation to complete.
type Message struct {
	Role    Role
	Content Part
}

// SampleRequest is what the server asks the model.
type SampleRequest struct {
	// SystemPrompt, if set, comes before the messages.
	SystemPrompt string
	Messages     []Message
	// MaxTokens bounds the reply; zero leaves the model's default.
	MaxTokens int64
	// StopSequences end the reply when the model writes one.
	StopSequences []string
	// Temperature; zero leaves the model's default.
	Temperature float64
	// ModelHints are the server's model preferences, most preferred
	// first; a Sampler that has one model ignores them.
	ModelHints []string
}

// StopReason is why the model stopped.
type StopReason string

// The stop reasons a Sampler reports.
const (
	StopEndTurn   StopReason = "endTurn"
	StopMaxTokens StopReason = "maxTokens"
)

// SampleResult is the model's reply: always assistant text.
type SampleResult struct {
	Text string
	// Model names the model that answered.
	Model string
	// StopReason; empty means StopEndTurn.
	StopReason StopReason
}

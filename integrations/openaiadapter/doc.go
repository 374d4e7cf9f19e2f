// Package openaiadapter runs agentadapter tools as OpenAI function tools
// (github.com/openai/openai-go/v3), every call through an [adapter.Executor].
//
//	ts, err := openaiadapter.New(reg, exec, nil) // &Options{Strict: true}: see ts.Issues()
//	if err != nil {
//		log.Fatal(err)
//	}
//	client := openai.NewClient()
//	conv, err := ts.Loop(ctx, &client.Chat.Completions, openai.ChatCompletionNewParams{
//		Model: openai.ChatModelGPT6Astra, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is 2+3?")}})
//
// Loop runs a Chat Completions conversation in one run scope; ChatAnswers,
// ResponseAnswers and AgentHandlers answer calls for ChatTools,
// ResponseTools and the Agents session stream. A model-facing error (bad
// arguments, a tool error, a denial, a run limit, not_found for a made-up
// name) is the answer, its payload; a fault (connection, internal) is an
// error. A held call is returned as a [kit.HeldCall] (Loop stops with
// [ErrPending]); once its ticket is decided, Resume (ChatResume,
// ResponseResume) runs exactly its arguments, once. Tool messages are text
// (adapter.Render); Responses outputs carry images as input_image parts.
package openaiadapter

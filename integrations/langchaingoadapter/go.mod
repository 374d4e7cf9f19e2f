module github.com/agentadapter/agentadapter/integrations/langchaingoadapter

go 1.25.0

require github.com/agentadapter/agentadapter v0.0.0

replace github.com/agentadapter/agentadapter => ../..

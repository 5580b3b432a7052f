"""The Agent Client Protocol (ACP): JSON-RPC 2.0 between a client (the wrapper) and an agent
it runs as a child, over the agent's stdin and stdout. What the kit knows of it so far: its
messages, checked against the protocol's official JSON Schema (`schema`)."""

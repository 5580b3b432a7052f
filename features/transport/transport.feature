# Hand-written. Each scenario cites the seed sentence or design decision it checks
# (features/transport/requirements.yaml). Durations are multiplied by --time-scale.
Feature: Transport: the agent served over DDS
  The seed says the agent "receives requests via DDS RPC" and returns "a Genesis RPC
  response" (seed 000), and that "a graph node event is published" (seed 001). These
  scenarios check what only a transport can show: replies matched by request_id, requests
  shared by several agents exactly once, states on the monitoring topic, OFFLINE on
  shutdown, and conversations that resume the harness session.

  Rule: Replies are matched to requests by request_id (seed 000: "receives requests via DDS RPC")

    @req:TR-1
    Scenario: Each reply carries its request's id and answers its request's own message.
      Given a served agent "A" with backend "claude".
      Given the harness answers every request with its prompt.
      When one client sends 5 requests at once.
      Then every request gets exactly one reply with its own request_id.
      Then every reply answers its own request's message.

    @req:TR-2
    Scenario: The reply has GENESIS's fields and the full response as JSON in metadata.
      Given a served agent "A" with backend "codex".
      Given the harness answers every request with its prompt.
      When one client sends 1 request in conversation "conv-fields".
      Then every reply carries GENESIS's reply fields and the full response in metadata.

  Rule: Several agents on one domain share the load (DESIGN.md, Transport; decision D-7)

    @req:TR-3
    Scenario: Two agents, three clients: no request is lost or answered twice.
      Given served agents "A" and "B" with backend "claude".
      Given the harness answers every request with its prompt after 5 seconds.
      When 3 clients each send 4 requests at once.
      Then every request gets exactly one reply with its own request_id.
      Then every reply answers its own request's message.
      Then the harness ran 12 times.
      Then agents "A" and "B" both answered requests.

    @req:TR-4
    Scenario: A BUSY agent does not take a second request.
      Given served agents "A" and "B" with backend "claude".
      Given the harness answers every request with its prompt after 5 seconds.
      When 2 clients each send 3 requests at once.
      Then every request gets exactly one reply with its own request_id.
      Then no agent was BUSY with two requests at once.

    @req:TR-5
    Scenario: A request addressed to a named agent is answered by that agent only.
      Given served agents "A" and "B" with backend "claude".
      Given the harness answers every request with its prompt.
      When one client sends 4 requests at once addressed to agent "B".
      Then every request gets exactly one reply with its own request_id.
      Then every reply comes from agent "B".
      Then the harness ran only for agent "B".
      Then no agent but "B" offered to take them.

  Rule: States are published on the monitoring topic (seed 001: "a graph node event is published")

    @req:TR-6
    Scenario: The monitoring topic shows the lifecycle in order, with GENESIS's numbers.
      Given a served agent "A" with backend "claude".
      When one client sends 1 request.
      Then the monitoring topic shows agent "A" in the states DISCOVERING, READY, BUSY, READY.
      Then each state of agent "A" carries GENESIS's numeric value, the state before it and a reason.

    @req:TR-7
    Scenario: An agent told to stop publishes OFFLINE.
      Given a served agent "A" with backend "claude".
      When agent "A" receives SIGTERM.
      Then the last state of agent "A" on the monitoring topic is "OFFLINE", with a reason.
      Then the served process of agent "A" exited with code 0.

    @req:TR-8
    Scenario: Stopping an agent during a request terminates the harness and leaves no orphan.
      Given a served agent "A" with backend "claude".
      Given the harness runs for 1000 seconds.
      When one client sends 1 request without waiting.
      When agent "A" receives SIGTERM while BUSY.
      Then the client gets a reply with a non-zero status.
      Then the harness was terminated via SIGTERM and no process of it remains.
      Then the last state of agent "A" on the monitoring topic is "OFFLINE", with a reason.

  Rule: An agent says what it is in every state it publishes (docs/genesis.md, G07.3)
    GENESIS's agents advertise, when they start, their backend and their model and how they
    authenticate. A client that finds several agents on one domain, of different backends,
    must tell them apart before it sends anything; the monitoring topic is where it sees them
    first, so each state an agent publishes, from DISCOVERING on, carries its backend, its
    model and its credentials mode (null where it has none).

    @req:TR-10
    Scenario: Agents of two backends on one domain can be told apart before any request.
      Given a served agent "A" with backend "claude" and credentials "login".
      Given a served agent "B" with backend "codex" and the model "gpt-5-codex".
      Then every state of agent "A" on the monitoring topic describes it as:
        | field       | value    |
        | backend     | "claude" |
        | model       | null     |
        | credentials | "login"  |
      Then every state of agent "B" on the monitoring topic describes it as:
        | field       | value         |
        | backend     | "codex"       |
        | model       | "gpt-5-codex" |
        | credentials | null          |

  Rule: Each tool call of a request is published on the event topic (docs/genesis.md, G11.5 to G11.7)
    GENESIS publishes an edge from the agent to each tool it calls, so that whoever watches the
    domain sees the agent at work. The kit's agents publish the normalized events of each
    request's stream on the event topic, under the request's id: a tool call is a tool_start
    event naming its tool; a request that calls none publishes none.

    @req:TR-11
    Scenario: A request's tool calls appear on the event topic, one each, in order.
      Given a served agent "A" with backend "claude".
      Given the harness runs 2 tools, each started then answered, then answers.
      When one client sends 2 requests.
      Then the event topic shows, for every request, one tool_start event per tool, toolu_01, toolu_02, in that order, each naming its tool.

    @req:TR-11
    Scenario: A request that calls no tool publishes no tool event.
      Given a served agent "A" with backend "claude".
      Given the harness answers every request with its prompt.
      When one client sends 2 requests.
      Then the event topic shows no tool_start event for any request, and its answer.

  Rule: An agent numbers what it publishes (decision D-11)
    DDS hands a reader the samples of a topic by instance, and a late joiner reads the history
    after the fact: the order they arrive in is not always the order they were published. Each
    agent numbers its states, and its stream events, 1, 2, 3, ... as it publishes them, so
    that a reader can put them back in order.

    @req:TR-12
    Scenario: States and events are numbered in the order they were published.
      Given a served agent "A" with backend "claude".
      Given the harness runs 2 tools, each started then answered, then answers.
      When one client sends 2 requests.
      Then the states of agent "A" are numbered 1, 2, 3, ... in the order they were published.
      Then the events of the requests are numbered one after the other, in the order they were published.

  Rule: A conversation resumes its harness session (seed 000: "enabling the caller to resume the session later")

    @req:TR-9
    Scenario Outline: The next request of a conversation resumes the session; another conversation does not.
      Given a served agent "A" with backend "<backend>".
      Given the harness starts session "<session>".
      When one client sends 1 request in conversation "conv-1".
      When one client sends 1 request in conversation "conv-1".
      When one client sends 1 request in conversation "conv-2".
      Then harness run 1 was started without resume flags.
      Then harness run 2 was started with the "<backend>" resume flags for session "<session>".
      Then harness run 3 was started without resume flags.

      Examples:
        | backend | session                              |
        | claude  | 5d1c2b7e-0000-4000-8000-00000000c0de |
        | codex   | 019c7199-0000-7000-8000-00000000c0de |

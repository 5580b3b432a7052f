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
    Scenario: The reply has GENESIS's fields and the full response as JSON in metadata, for each request of a conversation.
      A request that names a conversation is an ordinary GENESIS request (seed 000: the agent
      "receives requests via DDS RPC" and "returns the final result as a Genesis RPC
      response"): the second request of the conversation, sent once the first is answered,
      is answered as the first was, by an agent that is still serving. Found by mutation
      testing (docs/mutation.md): an agent whose own bookkeeping of conversations failed after
      the first reply stopped serving (OFFLINE) with the second request unanswered, and only
      SHOULD scenarios failed.
      Given a served agent "A" with backend "codex".
      Given the harness answers every request with its prompt.
      When one client sends 1 request in conversation "conv-fields".
      When one client sends 1 request in conversation "conv-fields".
      Then every request gets exactly one reply with its own request_id.
      Then agent "A" has published no OFFLINE state.
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

    @req:TR-3
    Scenario: Two agents run two requests at the same time.
      Sharing the load means running at once: while one agent runs a request, another that
      is free takes the next. Both free agents offer to take the first request; the client
      grants it to one, and the other, told so by the grant, is free to offer for the second
      at once. Found by mutation testing (docs/mutation.md): an agent that kept its losing
      offer open until the winner's reply ran nothing meanwhile, and every request was still
      answered. The harness takes 2 real seconds, far longer than a request takes to reach a
      free agent, a loaded machine's included, so the two runs overlap.
      Given served agents "A" and "B" with backend "claude".
      Given the harness answers every request with its prompt after 2 real seconds.
      When one client sends 2 requests at once.
      Then every request gets exactly one reply with its own request_id.
      Then agents "A" and "B" were BUSY at the same time.

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

    @req:TR-5
    Scenario: Requests addressed to two agents in turn are each answered by the agent named.
      An agent reads the requests on the bus together, its own and the others': one that is
      not addressed to it is passed over, and the next one read with it may be its own. Found
      by mutation testing (docs/mutation.md): an agent that stopped reading at the first
      request not addressed to it lost the rest of what it had read, and the scenario above,
      whose requests are all addressed to one agent, passed. Requests sent one after the
      other reach a running agent one or a few at a time; so both agents are stopped while
      they are sent, and each reads them all at once when it is continued.
      Given served agents "A" and "B" with backend "claude".
      Given the harness answers every request with its prompt.
      When agents "A" and "B" are stopped (SIGSTOP), one client sends 6 requests addressed in turn to each, and the agents are continued (SIGCONT).
      Then every request gets exactly one reply with its own request_id.
      Then every reply comes from the agent its request was addressed to.

    @req:TR-3
    Scenario: A grant for a request an agent never offered to take does not make it run that request.
      A grant can name any agent: a client restarted, a copy of one, or a peer that is no
      client at all may grant a request it never asked for, to an agent that never offered to
      take it. An agent runs only the requests it offered to take (docs/dds.md, exactly once),
      so such a grant runs nothing: here the request's own client never grants it, so it is
      never run. Found by mutation testing (docs/mutation.md): a reference that ran a request
      granted to it without its offer, once free, passed every scenario before this one.
      Given a served agent "A" with backend "claude".
      Given the harness answers every request with its prompt after 2 real seconds.
      When one client sends 1 request without waiting.
      When agent "A" is BUSY, a client that never grants sends 1 request, and another participant grants it to that agent.
      Then the first request gets its reply, the second none in the 3 seconds after it, and the harness ran once.

  Rule: States are published on the monitoring topic (seed 001: "a graph node event is published")

    @req:TR-6
    Scenario: The monitoring topic shows the lifecycle in order, with GENESIS's numbers.
      Given a served agent "A" with backend "claude".
      When one client sends 1 request.
      Then the monitoring topic shows agent "A" in the states DISCOVERING, READY, BUSY, READY.
      Then each state of agent "A" carries GENESIS's numeric value, the state before it by name and number (none and -1 for the first) and a reason.

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

    @req:TR-8
    Scenario: Stopping an agent during a request whose harness ignores SIGTERM still ends it, and the client gets its reply.
      A CLI may catch SIGTERM to finish what it was doing, or ignore it. The agent that is told
      to stop gives it its grace period, then kills it, and still answers the request before it
      goes. Found by mutation testing (docs/mutation.md): an agent that gave up after the
      SIGTERM left without a reply.
      Given a served agent "A" with backend "claude".
      Given the harness ignores SIGTERM and runs for 1000 seconds.
      When one client sends 1 request without waiting.
      When agent "A" receives SIGTERM while BUSY.
      Then the client gets a reply with a non-zero status.
      Then the harness was terminated via SIGTERM and no process of it remains.

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

    @req:TR-10
    Scenario: A served agent asked to probe its credentials says from its READY state on what it found.
      Asked to probe (decision D-22), an agent is created by one short run of the CLI on its
      login, and uses the login or a key, which is billed per token. Its first state, published
      before that run, can only say "probe"; from READY on, its credentials mode is the one it
      found, and the READY state's reason says so in words, where a person watching the topic
      reads it. Found by mutation testing (docs/mutation.md): an agent whose READY reason left
      the probe's finding out passed every scenario before this one.
      Given the harness answers every request with its prompt.
      Given a served agent "A" with backend "claude" and credentials "probe".
      Then agent "A" published READY with a reason naming "login", and gives its credentials as "login" in that state and every state after it.

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

  Rule: An agent whose CLI is not found says so before any request (docs/genesis.md, G01.1 and G01.2)
    GENESIS makes sure at start that its CLI is on PATH, and stops with an error saying it was
    not found. The kit keeps a served agent up instead (a served agent that stops is one
    nobody is told about: decision D-22), so it must say what is wrong where a client looks
    first: it publishes DEGRADED, not READY, with a reason that names the command, and it
    still answers every request, with status 4 and a message naming the command (AG-H10),
    rather than leaving its client waiting for a reply that never comes.

    @req:TR-13
    Scenario: A served agent whose CLI is not on its PATH is DEGRADED, names it, and still answers.
      Given a served agent "A" with backend "claude" and the command "no-such-claude".
      When one client sends 2 requests.
      Then agent "A" published DEGRADED, and not READY, before its first request, with a reason naming "no-such-claude".
      Then every request gets exactly one reply with its own request_id.
      Then every reply has status 4 and a message naming "no-such-claude".
      Then the harness was never started.

  Rule: A client that never grants cannot keep an agent from the others (decision D-11)
    An agent offers to take one request at a time, and runs it once its client grants it the
    request. A client may never grant (it hung, or it is a peer that never meant to): the
    agent withdraws an offer nobody granted in a short while (5 seconds in the reference),
    puts that request at the back of its queue, and offers to take the next one, so the other
    clients' requests are still answered.

    @req:TR-16
    Scenario: A request whose client never grants it does not keep the agent from the next client's.
      Given a served agent "A" with backend "claude".
      When a client that never grants a request sends 1 request, and an agent offers to take it.
      When one client sends 1 request.
      Then the other client's request got exactly one reply, which answers its message.

  Rule: A conversation stays with the agent that answered it while that agent is online (decision D-25)
    A CLI keeps a session where it ran (Claude Code and Codex keep them in the user's home
    directory), and GENESIS pins a conversation to the service that answered it. So among
    several agents on one domain, only the agent that answered a conversation's last request
    takes its next ones, even while another agent is idle. Once that agent is OFFLINE,
    another takes them and resumes the same session: where the agents share a home directory
    the conversation goes on, elsewhere the CLI says it has no such session and the reply
    says so, instead of an answer given without the context the client counted on.
    A request that failed before its CLI named a session (its reply names none) does not end
    the conversation's session: the seeds leave it open, and the kit holds that a failed turn
    is no new conversation, so the next request resumes the session the conversation had,
    on the agent that answered it and on the one that takes over alike.

    @req:TR-14
    Scenario: A conversation's requests go to the agent that answered it, and to another once it is OFFLINE.
      Given served agents "A" and "B" with backend "claude".
      Given the harness starts session "5d1c2b7e-0000-4000-8000-00000000c0de".
      When one client sends 1 request in conversation "conv-1".
      When one client sends 3 requests at once in conversation "conv-1".
      Then every request gets exactly one reply with its own request_id.
      Then the agent that answered conversation "conv-1" first answered all of its requests, and no other agent offered to take one.
      When the agent that answered conversation "conv-1" receives SIGTERM.
      When one client sends 1 request in conversation "conv-1".
      Then the other agent answered that request.
      Then harness run 5 was started with the "claude" resume flags for session "5d1c2b7e-0000-4000-8000-00000000c0de".

    @req:TR-14
    Scenario: A conversation whose agent dies without a word goes to another agent once that agent is gone.
      An agent killed by SIGKILL publishes no OFFLINE. Its state's writer is lost with it, and
      the other participants see that instance gone within Cyclone DDS's participant lease (10
      seconds by default): an agent counts a gone agent as OFFLINE, or the conversation would
      wait for its owner forever. Found by mutation testing (docs/mutation.md): a reference
      that never saw a writer go away passed every scenario before this one.
      Given served agents "A" and "B" with backend "claude".
      When one client sends 1 request in conversation "conv-1".
      When the agent that answered conversation "conv-1" dies without a word (SIGKILL).
      When one client sends 1 request in conversation "conv-1".
      Then the other agent answered that request.

    @req:TR-14
    Scenario: A request that failed before its CLI named a session leaves the conversation's session, to its agent and to the next.
      Given served agents "A" and "B" with backend "claude".
      Given the harness starts session "5d1c2b7e-0000-4000-8000-00000000c0de".
      When one client sends 1 request in conversation "conv-1".
      When the harness, from now on, fails before it names a session.
      When one client sends 1 request in conversation "conv-1".
      When one client sends 1 request in conversation "conv-1".
      When the agent that answered conversation "conv-1" receives SIGTERM.
      When one client sends 1 request in conversation "conv-1".
      Then the other agent answered that request.
      Then harness run 3 was started with the "claude" resume flags for session "5d1c2b7e-0000-4000-8000-00000000c0de".
      Then harness run 4 was started with the "claude" resume flags for session "5d1c2b7e-0000-4000-8000-00000000c0de".

  Rule: A request's metadata is its client's to fill (docs/genesis.md, Interoperability names; decision D-26)
    GENESIS's request metadata is "a JSON object whose content depends on the path"; the
    kit's clients put their timeout there. Any participant of the domain may publish a
    request, so an agent cannot count on what the metadata holds: a request whose metadata is
    not a JSON object (not JSON at all, another JSON value, empty, or nested deeper than any
    parser goes) is answered as one without metadata, and the agent goes on serving the
    requests after it. A timeout that is no positive number of seconds (text, NaN, 0, a
    negative number) says nothing of how long its client waits, so it is read as none given:
    an agent that took a timeout of 0 at its word would drop the request unanswered as soon
    as it arrived (found by mutation testing, docs/mutation.md: the reference reading a
    timeout of 0 as one passed every scenario).

    @req:TR-15
    Scenario Outline: A request whose metadata is not a JSON object is answered, and the agent serves on.
      Given a served agent "A" with backend "claude".
      When one client sends 1 request whose metadata is '<metadata>'.
      When one client sends 1 request.
      Then every request gets exactly one reply with its own request_id.
      Then every reply answers its own request's message.

      Examples:
        | metadata              |
        | not json              |
        | [1, 2, 3]             |
        |                       |
        | {"timeout": "soon"}   |
        | {"timeout": NaN}      |

    @req:TR-15
    Scenario: Requests whose timeout is 0 or a negative number are answered as requests without a timeout.
      Given a served agent "A" with backend "claude".
      When one client sends 1 request whose metadata is '{"timeout": 0}'.
      When one client sends 1 request whose metadata is '{"timeout": -5}'.
      When one client sends 1 request.
      Then every request gets exactly one reply with its own request_id.
      Then every reply answers its own request's message.

    @req:TR-15
    Scenario: A request whose metadata is nested deeper than any parser goes is answered, and the agent serves on.
      Given a served agent "A" with backend "claude".
      When one client sends 1 request whose metadata is 100000 JSON arrays, one inside the other.
      When one client sends 1 request.
      Then every request gets exactly one reply with its own request_id.
      Then every reply answers its own request's message.

  Rule: A request whose client has stopped waiting is never run (docs/dds.md, "Nothing is left hanging")
    A client says in its request's metadata how long it waits for the reply. A request still
    waiting for a free agent when that time is up has nobody left to answer: an agent that
    ran it once free would spend a CLI run, and the user's quota, on a reply nobody reads,
    and hold up the requests behind it. Found by mutation testing (docs/mutation.md): the
    reference's expiry could be skipped and every scenario still passed.

    @req:TR-18
    Scenario: A request whose client stopped waiting while the agent was BUSY is not run once it is free.
      Given a served agent "A" with backend "claude".
      Given the harness answers every request with its prompt after 4 real seconds.
      When one client sends 1 request without waiting.
      When agent "A" is BUSY, the client sends 1 request it waits 1 second for.
      Then the first request gets its reply, the second none in the 3 seconds after it, and the harness ran once.

  Rule: A served agent refuses a DDS domain or configuration it cannot use, before it joins a domain (decision D-27)
    The kit starts each served agent with a domain id and a Cyclone DDS configuration file
    (docs/dds.md, the command that serves an agent). An agent given one it cannot use must
    say so and stop before it joins any domain: to Cyclone DDS a domain id of -1 means "the
    default domain" (domain 0), and a configuration file without an XML element means no
    settings at all, its default configuration, which multicasts on every interface. An agent
    that passed either on would serve where nobody asked it to, and say nothing. So it exits
    with a non-zero code and an error on stderr that names the value, and publishes no state,
    READY least of all.

    @req:TR-17
    Scenario Outline: A served agent given a DDS configuration file it cannot use names it and stops without joining a domain.
      When a served agent with backend "claude" is started with a DDS configuration file that <file>.
      Then it exited with a non-zero code, published no state, and its error names the file.

      Examples:
        | file                                       |
        | does not exist                             |
        | is not XML                                 |
        | is empty                                   |
        | holds an XML declaration and a comment only |
        | is a named pipe                            |

    @req:TR-17
    Scenario: A served agent given a DDS configuration that asks for DDS Security its build lacks says so and stops.
      The PyPI wheel of Cyclone DDS has no security plugins. Passed on, such a configuration
      fails deep inside Cyclone DDS, which calls the element unknown and ends with "Non
      specific error": the user learns neither that the build lacks the plugins nor what to
      do. Found by mutation testing (docs/mutation.md).
      Given this Cyclone DDS build has no DDS Security plugins.
      When a served agent with backend "claude" is started with a DDS configuration file that asks for DDS Security.
      Then it exited with a non-zero code, published no state, and its error names the file and says "plugins".

    @req:TR-17
    Scenario Outline: A served agent given a domain id that is no number from 0 to 232 names it and stops.
      When a served agent with backend "claude" is started with the domain id "<domain>".
      Then it exited with a non-zero code, published no state, and its error names "<domain>".

      Examples:
        | domain |
        | -1     |
        | 233    |
        | seven  |

  Rule: A served agent joins its domain with the DDS configuration it is given (decision D-27)
    The configuration file the kit gives a served agent is the one it must join with: it is
    what keeps the agent on loopback here, and on the network an operator chose elsewhere. An
    agent that joins with one of its own instead (a default it ships, whatever the variable
    CYCLONEDDS_URI says) can still answer here, where its own is loopback too, and no request
    would show it. So the file given here is the suite's own loopback configuration with one
    setting added that an agent joining with any other cannot fake: Cyclone DDS writes a trace
    of the configuration it runs with to a file the configuration names. Found by mutation
    testing (docs/mutation.md): a reference that took its shipped loopback file over the one
    it was given passed every scenario before this one.

    @req:TR-19
    Scenario: A served agent started with a usable DDS configuration file joins with that file.
      When a served agent with backend "claude" is started with the suite's own DDS configuration plus a file for Cyclone DDS to write its trace to.
      And one client sends 1 request.
      Then Cyclone DDS wrote that trace, which names the interface "lo".
      And every request gets exactly one reply with its own request_id.

  Rule: A served agent with nothing to do waits without using the CPU (decision D-28)
    A served agent is a service: it runs for days on a machine it shares, most of the time
    with nothing to do. Between requests it waits for the next sample to arrive (the
    reference: on a DDS WaitSet, waking at least every 0.2 s to check its deadlines), and uses
    next to no CPU. An agent whose wait returns at once, because it never clears what woke it
    or does not wait at all, spins through its loop and burns a core while idle; every request
    is still answered, so no other scenario shows it. Found by mutation testing
    (docs/mutation.md). The bound, a tenth of one CPU, is far above what an agent that waits
    uses. On a busy machine a loop that spins can get less than that, but it is running or
    waiting its turn to run all the time. Linux records how long a program was
    doing either; there the agent must also be doing one or the other less than half of those
    seconds, which an agent that waits properly does only for the moments it wakes.

    @req:TR-20
    Scenario: A served agent that has answered a request and has nothing more to do uses next to no CPU.
      Given a served agent "A" with backend "claude".
      Given the harness answers every request with its prompt.
      When one client sends 1 request.
      Then every request gets exactly one reply with its own request_id.
      Then agent "A" uses less than a tenth of one CPU, and is running or waiting its turn to run less than half the time, over the next 2 real seconds.

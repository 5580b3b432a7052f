# Hand-written: a wrapper of an agent of the Agent Client Protocol (ACP), each scenario traced to
# the protocol's text or to a decision (features/agent/requirements.yaml AG-ACP.*).
Feature: A wrapper of an ACP agent: the conversation behind one request
  An agent of the Agent Client Protocol is talked with, not handed a prompt: JSON-RPC 2.0 on
  its stdin and stdout, one message a line. For one request the wrapper initializes the
  agent, opens a session (or loads the one it resumes), sends the prompt, and reads the turn
  from the agent's `session/update` notifications until the prompt's answer says why the turn
  stopped. Meanwhile the agent may ask things of the wrapper: leave to run a tool, a file to
  read. These scenarios run once for each ACP backend the implementation declares:
  "gemini-acp" (the fake harness started as `gemini --acp`), "claude-acp" (as
  `claude-agent-acp`) and "codex-acp" (as `codex-acp`), each answering as that real agent
  does: its handshake, the updates it sends around a turn, how many updates report a tool
  call, its permission options. They are not applicable to an implementation that declares
  none of them; where a scenario names "gemini-acp", it runs as the declared backend.
  Decisions the protocol leaves to the client are stated with their reasons in
  docs/decisions.md D-35: a wrapper that has no person to ask approves no tool call, and it
  answers every request it does not serve with an error, never with silence.

  Rule: The agent is initialized, a session opened in the working directory, and the prompt sent to it (ACP: initialization, session setup)

    @req:AG-ACP.1
    Scenario: One request is a handshake, a new session and a prompt, in that order
      Given a CodingGenesisAgent with working_dir "/tmp/acp-project".
      Given the ACP agent says "4" and ends its turn
      When the agent answers "What is 2 + 2?"
      Then the implementation initialized the agent, then opened a session in the agent's working directory, then sent the prompt to that session
      Then every message the implementation sent the agent is valid ACP
      Then the response's session_id is the session the ACP agent opened

  Rule: The answer is the turn's message chunks joined, its tool calls counted once each (ACP: prompt turn, tool calls; decision D-3)

    @req:AG-ACP.2
    Scenario: The agent's thoughts are not the answer, its message chunks are
      Given the ACP agent thinks, then says "2 + 2 " and "= 4" and ends its turn
      When the agent answers "What is 2 + 2?"
      Then the response has:
        | key     | value       |
        | message | "2 + 2 = 4" |
        | status  | 0           |
        | error   | null        |

    @req:AG-ACP.2
    Scenario: A tool call reported begun and then completed is one tool call
      Given the ACP agent reports the tool call "call_1" begun, then completed
      Given the ACP agent reports the tool call "call_2" begun, then completed
      Given the ACP agent says "Listed twice." and ends its turn
      When the agent answers "List the files twice"
      Then the response has:
        | key        | value           |
        | message    | "Listed twice." |
        | status     | 0               |
        | tool_calls | 2               |

  Rule: A turn that stops for any reason but end_turn, or a prompt answered with an error, fails the request saying why (ACP: prompt turn, stop reasons)

    @req:AG-ACP.3
    Scenario Outline: A turn that stopped with "<reason>" fails the request
      Given the ACP agent says "Half an answer", then its turn stops with "<reason>"
      When the agent answers "Write the report"
      Then the response contains key "status" with a non-zero value.
      Then the response error contains "<reason>"

      Examples:
        | reason            |
        | refusal           |
        | max_tokens        |
        | max_turn_requests |
        | cancelled         |

    @req:AG-ACP.3
    Scenario: A prompt answered with a JSON-RPC error fails the request with the agent's message
      Given the ACP agent says "Half an answer", then answers the prompt with the error -32603 "quota exceeded for the day"
      When the agent answers "Write the report"
      Then the response contains key "status" with a non-zero value.
      Then the response error contains "quota exceeded for the day"

  Rule: A permission request is answered, and never approved by the wrapper on its own (ACP: tool calls, requesting permission; decision D-35)

    @req:AG-ACP.4
    Scenario: The agent asks leave to run a tool: the wrapper answers, and does not approve
      Given an agent for the "gemini-acp" backend with a safety timeout of 10 seconds
      Given the ACP agent asks leave to run a tool call
      Given the ACP agent says "I did not run it." and ends its turn
      When the agent answers "Remove the build folder"
      Then the permission request was answered without approving the tool call
      Then the response contains key "status" with value 0.

  Rule: A refusal is the agent's own option to refuse, and the caller is told of it (ACP: tool calls, requesting permission; decision D-35)
    The protocol's `cancelled` outcome says that the prompt turn was cancelled before anyone
    answered; a wrapper that refuses a tool call while the turn goes on selects the option the
    agent offers for that, one of a `reject_*` kind, and answers `cancelled` only when the
    agent offers none. The caller sees nothing of the conversation but the response: an
    agent that was refused a tool may answer that it could not do the work, or answer as
    though it had done it. So each refusal is named in the response's warnings, with the tool
    call the agent asked to run, for a person to decide whether to allow it.

    @req:AG-ACP.14
    Scenario: The wrapper refuses a tool call with the agent's option to refuse it
      Given an agent for the "gemini-acp" backend with a safety timeout of 10 seconds
      Given the ACP agent asks leave to run "rm -rf build"
      Given the ACP agent says "I did not run it." and ends its turn
      When the agent answers "Remove the build folder"
      Then the permission request was answered with an option of a reject kind the agent offered

    @req:AG-ACP.14
    Scenario: Offered two ways to refuse, the wrapper takes the first the agent lists
      Codex offers two options of kind reject_once: "decline" first ("No, continue without
      running it"), then "cancel" ("No, and tell Codex what to do differently"), which stops
      the turn to wait for a person. A wrapper runs unattended: it takes the first, the
      agent's own way to refuse and go on. Claude and Gemini offer one such option: for them
      this is the scenario above.
      Given an agent for the "codex-acp" backend with a safety timeout of 10 seconds
      Given the ACP agent asks leave to run "rm -rf build"
      Given the ACP agent says "I did not run it." and ends its turn
      When the agent answers "Remove the build folder"
      Then the permission request was answered with the first option of kind "reject_once" the agent offered

    @req:AG-ACP.15
    Scenario: The response's warnings name the tool call the wrapper refused
      Given an agent for the "gemini-acp" backend with a safety timeout of 10 seconds
      Given the ACP agent asks leave to run "rm -rf build"
      Given the ACP agent says "I did not run it." and ends its turn
      When the agent answers "Remove the build folder"
      Then the response's warnings name the tool call the agent asked leave to run

  Rule: A request the wrapper does not serve is answered with a JSON-RPC error, never left unanswered (JSON-RPC 2.0: every request gets a response; ACP: file system, only where the client offers it; decision D-35)

    @req:AG-ACP.5
    Scenario Outline: The agent asks <what>, which the wrapper never offered
      Given an agent for the "gemini-acp" backend with a safety timeout of 10 seconds
      Given the ACP agent asks <what>
      Given the ACP agent says "I could not do it." and ends its turn
      When the agent answers "Show me the users"
      Then the request "<method>" was answered with a JSON-RPC error
      Then the implementation did not offer the agent "<capability>" when it initialized it
      Then the response has:
        | key     | value                |
        | message | "I could not do it." |
        | status  | 0                    |

      Examples:
        | what                                  | method             | capability       |
        | to read the file "/etc/passwd"        | fs/read_text_file  | fs.readTextFile  |
        | to write the file "/tmp/acp-notes.md" | fs/write_text_file | fs.writeTextFile |
        | to run "ls" in a terminal             | terminal/create    | terminal         |

    @req:AG-ACP.16
    Scenario: A request the wrapper does not serve is answered "Method not found"
      JSON-RPC 2.0 names the error for a method that "does not exist / is not available":
      -32601, "Method not found". The agent reads the code, not the words: a wrapper that
      answers another code tells it something else went wrong (its params, the wrapper
      itself), and an agent may try again or give up the turn.
      Given an agent for the "gemini-acp" backend with a safety timeout of 10 seconds
      Given the ACP agent asks to read the file "/etc/passwd"
      Given the ACP agent says "I could not do it." and ends its turn
      When the agent answers "Show me the users"
      Then the request "fs/read_text_file" was answered with the JSON-RPC error -32601

  Rule: A request with a session id resumes that session with session/load (ACP: session setup, loading sessions)
    An agent that loads a session replays its conversation first, as session/update
    notifications, before it answers session/load: that replay is history, not the answer.

    @req:AG-ACP.6
    Scenario: A request that resumes a session loads it before the prompt
      Given the ACP agent says "Still here." and ends its turn
      When the agent answers "And now?" resuming the ACP session "5e5510a0-0000-4000-8000-0000000000aa"
      Then the implementation loaded the session "5e5510a0-0000-4000-8000-0000000000aa" and sent the prompt to it
      Then the response has:
        | key        | value                                  |
        | message    | "Still here."                          |
        | session_id | "5e5510a0-0000-4000-8000-0000000000aa" |

  Rule: A session is loaded only from an agent that offers to load one (ACP: session setup, loading sessions, checking support; decision D-39)
    An agent offers to load sessions with `loadSession` in its answer to `initialize`; one
    that does not offer it cannot be asked to. The protocol leaves open what the wrapper does
    then. Decision D-39: it fails the request. Answering from a new session instead would
    answer without the conversation the caller asked to continue, and say nothing of it.

    @req:AG-ACP.12
    Scenario: An agent that does not offer to load sessions is not asked to load one
      Given the ACP agent does not offer to load sessions
      Given the ACP agent says "A fresh start." and ends its turn
      When the agent answers "And now?" resuming the ACP session "5e5510a0-0000-4000-8000-0000000000cc"
      Then the implementation sent the agent no session/load

    @req:AG-ACP.13
    Scenario: A request to resume a session the agent cannot load fails, and no new session answers it
      Given the ACP agent does not offer to load sessions
      Given the ACP agent says "A fresh start." and ends its turn
      When the agent answers "And now?" resuming the ACP session "5e5510a0-0000-4000-8000-0000000000cc"
      Then the implementation sent the agent no prompt
      Then the response contains key "status" with a non-zero value.
      Then the response contains error information.

  Rule: The turn is what came before the prompt's answer, and the prompt's answer is the one with the prompt's id (JSON-RPC 2.0: a response has the id of its request; ACP: prompt turn)

    @req:AG-ACP.8
    Scenario: An update that comes after the prompt's answer is not part of the answer
      Given the ACP agent says "On time." and ends its turn
      Given the ACP agent then says " Too late."
      When the agent answers "Be brief"
      Then the response has:
        | key     | value      |
        | message | "On time." |
        | status  | 0          |

    @req:AG-ACP.8
    Scenario: An update that comes after the answer to a resumed session's prompt is not part of the answer
      Given the ACP agent says "Resumed." and ends its turn
      Given the ACP agent then says " Too late."
      When the agent answers "Go on" resuming the ACP session "5e5510a0-0000-4000-8000-0000000000bb"
      Then the response has:
        | key     | value      |
        | message | "Resumed." |
        | status  | 0          |

    @req:AG-ACP.9
    Scenario: An answer with an id the wrapper never used does not end the turn
      Given the ACP agent first answers the id 99 with the stop reason "end_turn"
      Given the ACP agent says "The real answer." and ends its turn
      When the agent answers "Take your time"
      Then the response has:
        | key     | value              |
        | message | "The real answer." |
        | status  | 0                  |

    @req:AG-ACP.8
    Scenario: A tool call the agent reports after answering the prompt with an error is not counted
      Given the ACP agent says "Half an answer", then answers the prompt with the error -32603 "quota exceeded for the day"
      Given the ACP agent then reports the tool call "call_9" begun, then completed
      When the agent answers "Write the report"
      Then the response contains key "status" with a non-zero value.
      Then the response has:
        | key        | value |
        | tool_calls | 0     |

  Rule: An agent that never answers the prompt is ended at the deadline, as any CLI is (seed 001: "Error Handling: Subprocess Timeout")

    @req:AG-ACP.7
    Scenario: The agent never answers the prompt
      Given an agent for the "gemini-acp" backend
      Given the harness never finishes
      When the agent answers "Wait for me"
      Then the response contains key "status" with value 3.
      Then the harness received SIGTERM
      Then neither the harness nor its grandchild is left running

  Rule: Once the prompt is answered, the wrapper closes the agent's stdin and the agent ends (ACP: the agent is the client's subprocess; decision D-6)
    An agent of the protocol serves prompt after prompt until its stdin closes. A wrapper that
    answers one request and leaves the agent waiting leaves a process behind every request; one
    that stops it with a signal instead (a grace period after its turn, D-38, which is for an
    agent that does not end on its own) has not closed its stdin: the agent received no signal.

    @req:AG-ACP.10
    Scenario: The agent has ended when the answer comes
      Given an agent for the "gemini-acp" backend with a safety timeout of 10 seconds
      Given the ACP agent says "All done." and ends its turn
      When the agent answers "Finish up"
      Then the response contains key "status" with value 0.
      Then the harness received no signal
      Then neither the harness nor its grandchild is left running

  Rule: At the deadline the wrapper cancels the turn, and signals the agent only if it has not ended a grace period later (ACP: prompt turn, cancellation; seed 001: "Error Handling: Subprocess Timeout"; decision D-37)
    The protocol lets a client cancel a turn at any time with `session/cancel`, and asks an
    agent that is cancelled to stop its model requests and tools and to answer the prompt with
    the stop reason `cancelled`. The seed asks for a graceful end at the deadline. So the
    wrapper cancels the turn first: an agent that stops ends on its own once its stdin closes,
    and one that does not is ended as any CLI is, a grace period later. Either way the request
    timed out.

    @req:AG-ACP.11
    Scenario: An agent that stops when its turn is cancelled ends without a signal
      Given an agent for the "gemini-acp" backend with a timeout of 10 seconds
      Given a safety grace period of 5 seconds
      Given the ACP agent works until its turn is cancelled, then stops it
      When the agent answers "Wait for me"
      Then the response contains key "status" with value 3.
      Then the implementation cancelled the turn before it sent any signal
      Then the harness received no signal
      Then neither the harness nor its grandchild is left running

    @req:AG-ACP.11
    Scenario: An agent that ignores the cancel is ended with SIGTERM a grace period later
      Given an agent for the "gemini-acp" backend with a timeout of 10 seconds
      Given the ACP agent works on when its turn is cancelled
      When the agent answers "Wait for me"
      Then the response contains key "status" with value 3.
      Then the implementation cancelled the turn before it sent any signal
      Then the harness received SIGTERM
      Then neither the harness nor its grandchild is left running

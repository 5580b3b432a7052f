Feature: Sessions: a request resumes the session it names, and only that one
  A coding CLI keeps a conversation's context in a session it stores itself; the next turn of
  that conversation runs the CLI with its resume syntax (claude and gemini: `--resume ID`;
  codex: `exec ... resume ID -`). The seeds return the session id in every answer (RP-4.1)
  so that a caller can resume it; GENESIS's multi-turn chapter (docs/genesis.md, G09) says
  what resuming must do. Here the caller names the session on the request (`session_id`);
  over DDS a conversation id does the same (features/transport, TR-9).

  Rule: A request resumes the session it names, and a request that names none starts afresh
    Resuming a session nobody asked for leaks one caller's context into another's request,
    so an agent never resumes on its own, not even the session of its previous answer.

    @req:AG-S1
    Scenario: A request that names a session resumes it; the next, naming none, does not
      Given an agent for the "claude" backend
      When the agent answers "Hello again" resuming the session "sess-resume-001"
      Then the harness was started resuming the session "sess-resume-001"
      When the agent answers "Something new"
      Then the harness was started resuming no session

  Rule: The answer carries the session the CLI reports, which may be a new one
    A resumed run can report another session id than the one it resumed (the CLI forked the
    session, or could not find it and started a new one); the conversation goes on in the
    session the CLI reports, so the answer carries that one, never the one that was asked for
    (GENESIS, docs/genesis.md G09.6).

    @req:AG-S2
    Scenario: A resumed run that reports a new session id answers with the new one
      Given an agent for the "claude" backend
      And the harness reports the session "sess-forked-002"
      When the agent answers "Hello again" resuming the session "sess-resume-001"
      Then the harness was started resuming the session "sess-resume-001"
      And the response has:
        | key        | value             |
        | status     | 0                 |
        | session_id | "sess-forked-002" |

  Rule: The session is the one the init line names, whatever a later line says (seed 000: RP-4.1)
    The seed takes the session id "from init event": the init line is where the CLI says which
    session this run is. Claude Code repeats the id on every later line, the result included;
    should a later line name another session (a stream the agent cannot reconcile), the answer
    still carries the init line's, the session the run was started in. An agent that answers
    with the last id it read would send the caller's next turn into a session nobody opened.

    @req:RP-4.1
    Scenario: A result line naming another session does not replace the init line's
      Given an agent for the "claude" backend
      And the harness names the session "sess-init-003" in its init line and "sess-other-004" in its result line
      When the agent answers "Hello"
      Then the response has:
        | key        | value           |
        | status     | 0               |
        | session_id | "sess-init-003" |

  Rule: Without an init line, the session is the one the stream's other lines name
    The seed takes the session id from the init line, and says why: so that the caller can
    resume the session later. Should the init line be missing (a CLI of another version, a
    stream cut at its start and retried), Claude Code still names the session on every later
    line, its result included. The answer carries that id rather than none: without it, the
    caller's next turn starts a new conversation and loses this one.

    @req:AG-S3
    Scenario: A stream without an init line answers with the session its lines name
      Given an agent for the "claude" backend
      And the harness prints no init line and names the session "sess-noinit-005" on its other lines
      When the agent answers "Hello"
      Then the response has:
        | key        | value             |
        | status     | 0                 |
        | session_id | "sess-noinit-005" |

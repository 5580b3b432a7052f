# Hand-written. Each scenario cites the seed sentence or decision it checks
# (features/real-cli/requirements.yaml). Durations are real seconds: a real CLI takes the time
# it takes, so --time-scale does not apply here.
@real-cli
Feature: Real CLIs: the agent drives the real claude, codex and gemini, and their ACP agents, against a scripted model
  The other agent scenarios play what the CLIs print with the fake harness. These run the CLIs
  themselves: the pinned Claude Code, Codex and Gemini CLI (`agent-tck install-clis`), each inside a fresh
  network namespace that has loopback alone, with a temporary HOME and working directory,
  talking to a scripted stand-in for its model API on 127.0.0.1 (the Anthropic Messages API
  for claude, the OpenAI Responses API for codex, the Gemini API for gemini, all streaming). The model is scripted;
  everything else is real: the CLI, its tools, the files they write, its stream, its session
  store and its exit code.

  The agent under test is the same as in every other scenario, reached through its driver; only
  the PATH it is given leads to the real CLI instead of the fake harness. The sandbox sets what
  a user would set to point a CLI at another endpoint (base URL, API key, a model provider for
  codex, the API-key login and one model for gemini), grants the tools permission in the CLI's
  own settings file, trusts the working directory (gemini's GEMINI_CLI_TRUST_WORKSPACE), and
  turns off the CLIs' retries so a failing model fails at once (CLAUDE_CODE_MAX_RETRIES=0;
  codex's request_max_retries=0): the agent is not asked to pass any flag a user would not.

  Each CLI also runs as an agent of the Agent Client Protocol (docs/acp.md): the Gemini CLI
  itself (`gemini --acp`, backend gemini-acp), Claude Code through `claude-agent-acp`
  (claude-acp: the Claude Agent SDK's own build of Claude Code, which asks its model for the
  session's title beside the turn, and after a turn for what the user will type next) and
  Codex through `codex-acp` (codex-acp: `codex app-server` underneath, which asks its model
  for a new session's title after its first turn; its sandbox names a model Codex knows,
  gpt-5.5, because codex-acp puts Codex's warning about an unknown model into the turn's text,
  where no wrapper can tell it from the model's words). The scripted model answers those
  requests of the agents' own beside the script, as a real model answers each request: played
  from the script, one sent before the next prompt's request (codex-acp's title, where the
  wrapper reads the turn's end late) would take that prompt's turn. An agent reports a 401 as
  the protocol's "Authentication required" error, without the API's text: that is the text the
  wrapper can report (RC-5). None of them runs RC-7: each titles a tool call with what it does
  (the command, "Terminal"), not with the tool's name. gemini-acp does not run RC-3 and RC-4
  either, for what the real agent does: it stores a session of its own when it starts, beside
  the one the wrapper opens (RC-3 asks for the one session stored); its `session/load` answers
  "No previous sessions found for this project" for the session it stored in the same working
  directory, which the same CLI resumes with `--resume` (RC-4).

  Where no loopback-only namespace can be made, or the pinned CLIs are not installed, these
  scenarios are reported "not run" with that reason; a real CLI never runs unisolated. That is
  why every requirement here is a SHOULD: a machine's limits cannot make an implementation
  non-conformant, while a real CLI that the agent mishandles fails the run with --strict.

  Rule: A real turn answers with the model's text (seed 000: "Simple text response")

    @req:RC-1
    Scenario Outline: The real <backend> answers with what the model said
      Given an agent driving the real "<backend>" CLI
      And the model answers "The answer is 4."
      When the agent is asked "What is 2 + 2?"
      Then the response has status 0 and the message "The answer is 4."
      And the model received the prompt "What is 2 + 2?"

      Examples:
        | backend    |
        | claude     |
        | codex      |
        | gemini     |
        | gemini-acp |
        | claude-acp |
        | codex-acp  |

  Rule: Tools really run in the working directory, each call counted once (seed 000; D-3)
    The model calls two tools: one writes a file, one lists the directory. The file must be in
    the agent's working directory with the content the model asked for, and tool_calls must be
    2: each call once, whether the CLI reports it as started and completed (codex) or as a
    tool_use followed by a tool_result (claude, gemini).

    @req:RC-2
    Scenario Outline: The real <backend> writes a file with a tool and tool_calls counts the calls
      Given an agent driving the real "<backend>" CLI
      And the model writes "hello.txt" holding "hello from a real tool" with a tool, then lists the directory with another
      And the model answers "Wrote hello.txt."
      When the agent is asked "Write hello.txt"
      Then the response has status 0 and the message "Wrote hello.txt."
      And "hello.txt" in the working directory holds "hello from a real tool"
      And the response counts 2 tool calls

      Examples:
        | backend    |
        | claude     |
        | codex      |
        | gemini     |
        | gemini-acp |
        | claude-acp |
        | codex-acp  |

  Rule: session_id is the session the real CLI created (seed 000: "Session ID Extraction")
    Claude prints it in its system/init line, codex in its thread.started line and gemini in
    its init line; each also
    stores the session under its HOME. The response's session_id must be that stored session,
    not an id the agent made up or took from another line.

    @req:RC-3
    Scenario Outline: The real <backend>'s session is the response's session_id
      Given an agent driving the real "<backend>" CLI
      And the model answers "Noted."
      When the agent is asked "Remember the number 7."
      Then the response has status 0 and the message "Noted."
      And the response's session_id is the one session the real CLI stored

      Examples:
        | backend    |
        | claude     |
        | codex      |
        | gemini     |
        | claude-acp |
        | codex-acp  |

  Rule: A session is resumed with each CLI's real syntax (seed 000: "enabling the caller to resume the session later")
    A request that gives an earlier response's session_id resumes that session: `claude -p
    --resume ID`, `codex exec [flags] resume ID -` (flags before `resume`, the prompt on
    stdin) and `gemini ... --resume ID`. The model then sees the first turn again in the
    second request, which is the proof that the CLI resumed rather than started afresh.
    Over DDS a client does not name the CLI's session: it names its conversation, as a GENESIS
    client does (features/transport, TR-9), and the served agent resumes that conversation's
    session. Through that driver both requests carry one conversation id; the proof is the same.

    @req:RC-4
    Scenario Outline: The real <backend> resumes the session of an earlier response
      Given an agent driving the real "<backend>" CLI
      And the model answers "Noted."
      And the model answers "You said 7."
      When the agent is asked "Remember the number 7."
      And the agent is asked "Which number did I say?" in the same session
      Then the response has status 0 and the message "You said 7."
      And the response keeps the first response's session_id
      And the model's last request carried the earlier prompt "Remember the number 7."

      Examples:
        | backend    |
        | claude     |
        | codex      |
        | gemini     |
        | claude-acp |
        | codex-acp  |

  Rule: A failing model API fails the request with the CLI's own error text (seed 001; D-4)
    The model API answers 401. Claude reports it in an assistant line carrying an error and a
    result line with is_error true, and exits 1; codex reports it in error and turn.failed
    lines, and exits 1; gemini reports it in a result line with status error, whose message
    quotes the API's error body, and exits non-zero (145 for a 401). Either way the status is non-zero, the error says what
    the CLI said, and the agent is READY for the next request.

    @req:RC-5
    Scenario Outline: The real <backend> reports the model API's 401
      Given an agent driving the real "<backend>" CLI
      And the model API answers every request with HTTP 401 "invalid api key"
      When the agent is asked "Hello"
      Then the response has a non-zero status and its error contains "<cli says>"
      And the agent is back to READY

      Examples:
        | backend    | cli says                          |
        | claude     | API Error: 401 invalid api key    |
        | codex      | 401 Unauthorized: invalid api key |
        | gemini     | "message":"invalid api key"       |
        | gemini-acp | invalid api key                   |
        | claude-acp | Authentication required           |
        | codex-acp  | Authentication required           |

  Rule: A model that stalls past the timeout leaves nothing running (seed 001: timeout; D-6)
    A tool first starts a process in the background, then the model stalls. At the agent's
    deadline SIGTERM goes to the CLI's whole process group (SIGKILL after the grace period):
    when the response comes, the CLI and every process its tools started are gone, the status
    is the timeout's (3), and the agent is READY. A signal to the group is not enough: Claude
    Code's Bash tool runs each command in a process group of its own, so `nohup cmd &` in a
    tool outlives both the CLI and a group kill. The reference finds such processes by a run
    id it puts in the CLI's environment (which tools inherit) and signals them with the group.
    The timeout must leave the tool time to run first, so it is each CLI's own: about eleven
    times the CLI's turn with a tool on a quiet machine (claude 0.9 s, codex 0.7 s, gemini
    2.7 s, measured 2026-11-27). Load stretches a turn about threefold: on a busy machine the
    Gemini CLI took 6 to 9 seconds to start and answer one model turn, and a 10-second timeout
    once came before its tool had run (docs/flakes.md). The ACP agents get gemini's 30: each is a
    Node.js program that starts its CLI beneath it, and on a busy machine claude-agent-acp can
    take longer than 10 seconds to run its tool. Each second of the timeout is a second the
    scenario waits, so the fast CLIs do not wait out the slow ones'.

    @req:RC-6
    Scenario Outline: The real <backend> is stopped with its tools when the model stalls
      Given an agent driving the real "<backend>" CLI, with a timeout of <timeout> seconds
      And the model has a tool start a background process, then stalls for 120 seconds
      When the agent is asked "Start the job"
      Then the response has status 3
      And the tool's background process had started
      And no process the real CLI started is still running
      And the agent is back to READY

      Examples:
        | backend    | timeout |
        | claude     | 10      |
        | codex      | 10      |
        | gemini     | 30      |
        | claude-acp | 30      |
        | codex-acp  | 30      |
        | gemini-acp | 30      |

  Rule: What the agent publishes shows the real request at work (docs/genesis.md, G14.1, G11.5)
    Whoever watches the agent sees it take the request and call the model's tools: it publishes
    BUSY when the request starts and READY when it ends (nothing else for a request that
    succeeds), and the request's tool calls come out among its stream events, one tool_start
    each with an id of its own, naming the tool as the real CLI's stream named it (Bash,
    command_execution, run_shell_command), before the event that carries the answer. Over DDS this is the monitoring topic (states) and the
    event topic (stream events), which the suite reads as any other participant of the domain
    would; in process and through an adapter it is what the agent handed its monitors.

    @req:RC-7
    Scenario Outline: The real <backend>'s request is published as it runs: BUSY, its tool calls, its answer, READY
      Given an agent driving the real "<backend>" CLI
      And the model writes "hello.txt" holding "hello from a real tool" with a tool, then lists the directory with another
      And the model answers "Wrote hello.txt."
      When the agent is asked "Write hello.txt"
      Then the response has status 0 and the message "Wrote hello.txt."
      And the agent published BUSY for the request, then READY
      And the request's events show 2 tool calls, each with its own id and the name the CLI gave its tool, then the answer "Wrote hello.txt."

      Examples:
        | backend    |
        | claude     |
        | codex      |
        | gemini     |

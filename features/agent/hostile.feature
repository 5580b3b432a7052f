Feature: Hostile harnesses: the failures real wrappers hit
  Wrappers of coding CLIs break in the same ways again and again; the public issue trackers of
  the Claude Code and Codex SDKs, and of the tools built on them, are full of the same reports.
  Each rule below names one of those failures, says what the agent does instead and why, and
  its scenarios play it with the fake harness for every backend where it applies: a scenario
  that names "claude" runs once for each backend its requirement lists in requirements.yaml
  (a new backend is a line there, not an edit here), and one whose Examples name the
  backends shows what is each CLI's own. Whatever the
  harness does, the agent answers with the right status within the timeout plus the grace
  period, leaves nothing running, and is READY afterwards (decisions D-5 and D-6; the
  scenarios already in decisions.feature cover long lines up to 2 MiB, a stderr flood, a
  grandchild holding stdout, SIGTERM ignored, stdin read to its end, flag-like prompts and
  invalid UTF-8).

  The timeout is a safety net here, never the subject: a hang still fails within it, and the
  answer must come before it, but it is 20 real seconds, never scaled (--time-scale), so that
  a slow or busy machine cannot fail a scenario whose subject is what the harness prints.
  Other durations (the harness's pauses) are nominal: the suite multiplies them by its time
  scale.

  Rule: A line past the implementation's limit is skipped with a warning, never a crash
    asyncio's StreamReader stops at 64 KiB ("Separator is not found, and chunk exceed the
    limit") and the Claude SDK's buffer at 1 MiB; real lines exceed both when a tool returns
    a large file. Every line up to 16 MiB is read whole (decisions.feature checks 2 MiB). Past
    that, the limit is the implementation's choice (decision D-33): it may read longer lines
    whole, up to a limit of its own below 128 MiB, so that its memory stays bounded whatever
    the CLI prints. The reference's limit is 16 MiB. A line beyond the limit is skipped, the
    response's `warnings` says a line was skipped, and how many (as a number: a caller can
    read it), and the request still answers from the other lines: one oversized tool result
    must not cost the user the whole turn. A warning that a line was skipped when none was, or
    more lines than were, is as wrong as none when one was: the caller would look for a tool
    result the CLI never lost. A codex turn may be answered with its last agent message
    (decision D-33), and a claude turn with its result, which repeats its last message
    (decision D-34): then what the implementation read of the lines before it is judged by the
    text events it reports.

    @req:AG-H1
    Scenario: A 20 MiB line is read whole or skipped with a warning, and the request still answers
      Either choice answers: with the line's text, or without it and saying so.

      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints a text of 20971520 bytes in one line, then answers "after the flood"
      When the agent answers "Hello"
      Then the response status is 0
      And the response message is the 20971520 bytes of text then "after the flood", or "after the flood" alone with a warning that 1 line was skipped
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

    @req:AG-H1
    Scenario: A line of exactly 16 MiB is read whole, and one of 128 MiB is skipped to its end
      A line past the limit is skipped whole, to its end: a reader that gives up on a long line
      and then reads what is left of it as the next line would act on the end of a line it
      said it skipped. Here that end is a complete event, after the spaces that pad the line.
      A line of exactly 16 MiB (the newline aside) is within the limit and is read whole,
      wherever it comes: here right after the skipped line, and again right after the first
      one. Each is an event padded with spaces after it, so only a line read from its start
      gives its text. Each line is measured from its own start: a reader that counts on from
      where the line before it left off, by as little as a byte, skips one of them.

      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints a line of 134283264 bytes, spaces before a text "from the skipped line", then two lines of exactly 16777216 bytes, the texts "first read whole" and "second read whole" each padded with spaces after it, then answers "after the lines"
      When the agent answers "Hello"
      Then the response status is 0
      And the response message contains "first read whole"
      And the response message contains "second read whole"
      And the response message contains "after the lines"
      And the response message does not contain "from the skipped line"
      And the response has a warning containing "skipped"
      And that warning gives 1 as the number of lines skipped

    @req:AG-H1
    Scenario: An answer whose lines are all within the limit has no warning of a skipped line
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints a text of 2097152 bytes in one line, then answers "after the line"
      When the agent answers "Hello"
      Then the response status is 0
      And the response message contains "after the line"
      And the response has no warning containing "skipped"


  Rule: Stdout is a stream of lines, whatever the harness puts in it
    Wrappers assume every line is one JSON object that arrives whole in one read. Real CLIs
    print blank lines, end without a final newline when they are cut off, and write large
    lines in many pieces or many lines in one piece. Every line that is not a JSON object is
    skipped (seed 001, "Parse Errors"); nothing the harness prints can end the stream early,
    crash the agent, or lose a line that follows.

    @req:AG-H2
    Scenario: Blank and whitespace-only lines between events
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints blank lines between its events, then answers "after the gaps"
      When the agent answers "Hello"
      Then the response has:
        | key     | value            |
        | status  | 0                |
        | message | "after the gaps" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY


    @req:AG-H3
    Scenario: The answer on a last line without a newline
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints the answer "cut short" as its last line, without a newline
      When the agent answers "Hello"
      Then the response has:
        | key     | value       |
        | status  | 0           |
        | message | "cut short" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY


    @req:AG-H3
    Scenario: Half a JSON object as the last line
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness answers "whole answer", then prints half a JSON object and exits
      When the agent answers "Hello"
      Then the response has:
        | key     | value          |
        | status  | 0              |
        | message | "whole answer" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY


    @req:AG-H4
    Scenario: JSON values that are not objects
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints JSON values that are not objects, then answers "objects only"
      When the agent answers "Hello"
      Then the response has:
        | key     | value          |
        | status  | 0              |
        | message | "objects only" |
      And the answer came within the timeout plus the grace period
      And the agent is READY


    @req:AG-H22
    Scenario Outline: A JSON object with <after> after it on its line is skipped whole
      A line is one JSON value or it is malformed: a parser that reads the first value of a
      line and ignores the rest takes the object in `{...} trailing` and answers with text
      the CLI never sent as a line of its stream.
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints a text event with <after> after it on its line, then answers "objects only"
      When the agent answers "Hello"
      Then the response has:
        | key     | value          |
        | status  | 0              |
        | message | "objects only" |
      And the agent is READY

      Examples:
        | after             |
        | " trailing"       |
        | {"type": "noise"} |
        | ","               |


    @req:AG-H5
    Scenario: A JSON line nested deeper than any parser's recursion limit
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints a JSON line nested 100000 levels deep, then answers "still standing"
      When the agent answers "Hello"
      Then the response has:
        | key     | value            |
        | status  | 0                |
        | message | "still standing" |
      And the answer came within the timeout plus the grace period
      And the agent is READY


    @req:AG-H6
    Scenario: Ten thousand lines in one write
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints 10000 numbered texts in one write, then finishes
      When the agent answers "Hello"
      Then the response status is 0
      And the response message is the 10000 numbered texts in order
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

    @req:AG-H23
    Scenario: An answer still in the pipe when the CLI exits is read whole
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness widens its stdout pipe to 1048576 bytes and closes its stderr, prints 3000 numbered texts in one write, then finishes at once
      When the agent answers "Hello"
      Then the response status is 0
      And the response message is the 3000 numbered texts in order
      And the agent is READY

    @req:AG-H23
    Scenario: An answer still in the pipe when the CLI exits with its stderr open is read whole
      Here both pipes end together at the exit, with most of the answer still in stdout's: the
      end of stderr is one pipe's end, however often a reader looks at it, and never both.

      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness widens its stdout pipe to 1048576 bytes, prints 3000 numbered texts in one write, then finishes at once
      When the agent answers "Hello"
      Then the response status is 0
      And the response message is the 3000 numbered texts in order
      And the agent is READY


    @req:AG-H7
    Scenario: One JSON object written a few bytes at a time, splitting UTF-8 characters
      The answer's text line and the line that ends the turn are both written this way:
      Claude's result repeats the answer (decision D-34), and an answer taken from it must
      come through the same split reads.

      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness writes its answer "Größe ✓ 完了 🎉" 3 bytes at a time, 0.1 s apart
      When the agent answers "Hello"
      Then the response has:
        | key     | value            |
        | status  | 0                |
        | message | "Größe ✓ 完了 🎉" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY


  Rule: A line of a shape no version printed yet is skipped, and the request goes on
    The CLIs add event types, system subtypes, item types and content blocks from one release
    to the next; one SDK ended the whole request on the first line whose shape it did not
    know. A line that is valid JSON of an unknown shape carries nothing the agent needs: it
    is skipped like any other line without an event, and the turn is answered as if it were
    not there.

    @req:AG-H14
    Scenario: Lines of unknown shapes between the events of a turn
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints lines of shapes no version printed yet, then answers "still here"
      When the agent answers "Hello"
      Then the response has:
        | key        | value        |
        | status     | 0            |
        | message    | "still here" |
        | tool_calls | 0            |
      And the answer came within the timeout plus the grace period
      And the agent is READY


  Rule: A stream that ends before the turn completed is not a plain success
    Claude Code ends every turn with a `result` line and Codex with `turn.completed`. A stream
    that stops before that and exits 0 (a crash that still exits 0, output cut by a wrapper
    script, a killed pipe) looks like success to a wrapper that trusts the exit code, and the
    caller takes half an answer for a whole one. Seed 001 contradicts itself here: its rule
    "Empty Response" says the agent must return an error rather than an empty success, while
    its scenario (EH-4.1) demands status 0 for a CLI that printed nothing and exited 0. The kit
    follows the scenario, the executable statement, and carries the rule's error in the
    answer's `warnings`: the agent may answer status 0 with the text so far, but then its
    `warnings` say that the turn did not complete; or it fails the request with an error that
    says so. Either way the caller is told, in any words that say
    it ("did not complete", "no result", "before the turn finished", "ended early"). A turn
    that did complete is never called incomplete, and an answer to which nothing went wrong
    carries no warning at all: a warning given with every answer tells the caller nothing,
    and teaches it to ignore the one that matters.

    @req:AG-H15
    Scenario: The CLI prints part of an answer and exits 0 without ending the turn
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness prints "half an ans" and exits with code 0 before the turn completes
      When the agent answers "Hello"
      Then the response keeps "half an ans" or fails, and says the turn did not complete
      And the answer came within the timeout plus the grace period
      And the agent is READY

    @req:AG-H15
    Scenario: A turn that completes is not called incomplete
      Given an agent for the "claude" backend
      When the agent answers "Hello"
      Then the response status is 0
      And no warning of the response says the turn did not complete
      And the response has no warnings


  Rule: A flood on stderr is cut to its tail, and the tail reaches the answer
    A CLI in a crash loop, or with debug logging on, can print hundreds of megabytes on
    stderr. Keeping it all costs the wrapper its memory; dropping it all leaves the user with
    "exit code 1" and no cause. The agent keeps a bounded tail of stderr: the answer's error
    carries the last line the CLI wrote there, and is at most 64 KiB however much came before.

    @req:AG-H16
    Scenario: 64 MiB on stderr, then a failure
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness writes 67108864 bytes to stderr, then "fatal: disk quota exceeded", and exits with code 1
      When the agent answers "Hello"
      Then the response status is 1
      And the response error contains "fatal: disk quota exceeded" and is at most 65536 bytes
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY


  Rule: Stderr is never read as the stream, whatever it looks like
    A CLI logs on stderr, and a debug log can hold whole lines of its own stream: the line it
    is about to print, or one from an earlier turn (GENESIS, event parsing, docs/genesis.md
    G05.9). The answer comes from stdout alone; a wrapper that merges the two streams, or
    parses stderr for events, answers with what the log said.

    @req:AG-H20
    Scenario: Lines of the CLI's own stream on stderr, then the answer on stdout
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness writes a text and a final answer "from the log" to stderr, then answers "from stdout"
      When the agent answers "Hello"
      Then the response has:
        | key     | value         |
        | status  | 0             |
        | message | "from stdout" |
      And the agent is READY


  Rule: A CLI silent from its start is bounded by the request's own timeout
    A CLI can hang before it prints anything: a lock on its session file, a network call at
    start-up, a prompt for a login nobody will answer. Some wrappers wait a fixed time for
    the first line (the Claude SDKs wait 60 s for their handshake) whatever the request's
    timeout. The request's timeout bounds the whole run, the start included: the answer is a
    timeout (status 3) within the timeout plus the grace period. (Under the time scale the
    timeout is at least one real second, as every scaled deadline of a request that runs:
    see D-6.)

    @req:AG-H17
    Scenario: The CLI starts and prints nothing, ever
      Given an agent for the "claude" backend with a timeout of 10 seconds
      And the harness prints nothing and never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY


  Rule: The timeout is a deadline for the whole request, not a limit on silence
    Seed 001 has the agent stop the subprocess when it "exceeds timeout": a deadline for the
    request. A wrapper in a hurry restarts its timer whenever the CLI prints a line (signs of
    life), so a CLI that keeps printing more often than the timeout (a long run of tool
    calls, a progress log on stderr, a model caught in a loop) is never stopped, and the
    request runs on for ever. Here the CLI prints a line five times per timeout, long past
    the timeout plus the grace period, and only then answers: the request still ends at its
    deadline with status 3, within the timeout plus the grace period (plus 2 s to start and
    reap the CLI, as D-6 states), whatever the CLI prints and on whichever stream. A
    deadline counted from the CLI's first line instead of the request's start is the same
    mistake seen from the other end: a CLI silent for most of the timeout, then chatty, is
    stopped at the request's deadline too. These scenarios check EH-1.1, the seed's own
    rule: a CLI that is never stopped exceeds its timeout.

    @req:EH-1.1
    Scenario Outline: A CLI that keeps printing <what> is still stopped at the deadline
      Given an agent for the "claude" backend with a timeout of 10 seconds
      And the harness keeps printing <what> long past the deadline, then answers "too late"
      When the agent answers "Hello"
      Then the response status is 3
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

      Examples:
        | what         |
        | text events  |
        | tool events  |
        | stderr lines |

    @req:EH-1.1
    Scenario: A CLI silent for most of the timeout, then printing, is stopped at the request's deadline
      Given an agent for the "claude" backend with a timeout of 150 seconds
      And the harness prints nothing for most of the timeout, then keeps printing text events long past the deadline, then answers "too late"
      When the agent answers "Hello"
      Then the response status is 3
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running


  Rule: Creating an agent never waits on the CLI
    A wrapper that runs the CLI when an agent is created (a version query, a login check)
    holds up its caller for as long as the CLI takes, and forever when the CLI hangs: the
    service never comes up. Creating an agent answers at once whatever the CLI does; anything
    it runs then is bounded and left running by nobody. "At once" is 5 real seconds here, far
    above what creating takes, so that a busy machine fails nothing.

    @req:AG-H18
    Scenario: The CLI hangs on every run while the agent is created
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And every run of the harness hangs
      When the agent is created
      Then it was created within 5 real seconds
      And no harness started for it is left running


  Rule: A session id is data, never an option
    The session id a request resumes comes from an earlier answer, a caller, or a reply on a
    shared bus; a wrapper that puts it into argv after `--resume` unchecked lets whoever
    supplies it add options to the next run: `--dangerously-skip-permissions`,
    `--mcp-config=...`. Whatever the agent does with such an id (refuse it, or pass it in a
    form the CLI reads as a value, such as `--resume=ID`), it never reaches the CLI as an
    option of its own. The reference refuses it with status 4 (nothing started).

    @req:AG-H19
    Scenario Outline: A session id shaped like an option
      Given an agent for the "<backend>" backend with a safety timeout of 20 seconds
      When the agent answers "Hello" resuming the session "<session>"
      Then no harness was started with "<session>" as an option
      And the agent is READY

      Examples:
        | backend | session                                     |
        | claude  | --dangerously-skip-permissions              |
        | codex   | --dangerously-bypass-approvals-and-sandbox  |
        | claude  | --mcp-config=/tmp/planted.json              |

  Rule: A session id resumes the conversation it names, and no other
    Gemini reads the value after `--resume` as a session id, or as an alias: "latest" resumes
    the last conversation of the project, a number the conversation at that index of its list.
    A session id handed on as it came resumes whichever conversation that is, not one the
    caller named. Whatever the agent does with such an id (refuse it, or start a new
    conversation), the CLI is never started resuming it. The reference refuses it with status
    4 (nothing started).

    @req:AG-H27
    Scenario Outline: A session id that the CLI reads as an alias
      Given an agent for the "gemini" backend with a safety timeout of 20 seconds
      When the agent answers "Hello" resuming the session "<session>"
      Then no harness was started resuming the session "<session>"
      And the agent is READY

      Examples:
        | session |
        | latest  |
        | 3       |

  Rule: A failure fails the request, whether the stream or the exit code reports it
    Exit codes and streams disagree in both directions. Claude Code exits 0 after an API
    failure it reports as an error result, and Codex can exit 0 after `turn.failed`; a wrapper
    that trusts the exit code reports success with an error message as the answer. The other
    way round, a CLI can exit non-zero after a turn that completed (a hook, a session file or
    a telemetry flush failing at exit). Seed 001 ("If the subprocess exits with a non-zero
    return code, the agent must report the error") and decision D-4 make that a failure too:
    status 1. Its message gives the exit code and says the turn had completed (in any words
    that say so: "completed", "finished"), whatever the failing hook wrote to stderr on its
    way out, so a caller can tell "failed after the work was done" from "failed before" and
    need not blindly retry edits already made; and it still carries the turn's answer, which
    the exit code must not take away.

    @req:AG-H8
    Scenario: An error result, then exit code 0
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness reports the failure "quota exhausted" in its stream, then exits with code 0
      When the agent answers "Hello"
      Then the response status is 1
      And the response message contains "quota exhausted"
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY


    @req:AG-H9
    Scenario: A success result, then exit code 1
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness answers "the work is done", then writes "hook failed: SessionEnd" and "see the debug log" to stderr and exits with code 1
      When the agent answers "Hello"
      Then the response status is 1
      And the response message gives exit code 1 and says the turn had completed
      And the response message contains "the work is done"
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

    @req:EH-2.1
    Scenario: A completed turn, then exit code 1 with nothing on stderr
      Seed 001, "Subprocess Crash": "If the subprocess exits with a non-zero return code, the
      agent must report the error and return to READY state." The seed's own scenario gives
      the CLI a line of stderr, which the error can simply carry; here the CLI printed a
      whole turn and says nothing of why it failed, so the only error to report is the exit
      code itself. Found by mutation testing (docs/mutation.md): an agent whose own code failed
      on a one-line error answered "internal error of the agent: IndexError", which names
      neither the CLI nor its exit code, and passed every MUST scenario.
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness answers "the work is done", then exits with code 1 and writes nothing to stderr
      When the agent answers "Hello"
      Then the response status is not 0
      And the response error gives exit code 1, not a failure of the agent itself
      And the agent is READY


  Rule: A CLI that cannot be started is named in a clear error, and the agent stays READY
    "No such file or directory" with no name, or a stack trace, is what users of wrappers get
    when the CLI is not installed or lost its executable bit (a package unpacked without
    modes, a shim written by hand), or when the CLI is a script whose interpreter is gone (its
    first line names a Python of a virtualenv since deleted). The response has status 4 and
    its message names the command and says which of the three it is, in any words the
    platform or the implementation uses ("not found", "No such file or directory", ENOENT;
    "not executable", "Permission denied", EACCES; and for the third, the word
    "interpreter" and the interpreter's path as the script's first line gives it, options
    after it aside: the kernel's ENOENT alone would send the user looking for a command that
    is there, and the path says which Python, of which virtualenv, to bring back), so the
    user knows what to fix; nothing was started and the agent takes the next request. An
    interpreter that is there but not executable (a virtualenv copied without its modes) is
    the second case, not the third: the kernel says EACCES, and a wrapper that reads every
    failure of a script as its interpreter's absence sends the user after a file that exists.

    @req:AG-H10
    Scenario Outline: The CLI cannot be started
      Given an agent for the "<backend>" backend with a safety timeout of 20 seconds
      And the harness command <problem>
      When the agent answers "Hello"
      Then the response status is 4
      And the response message names "<backend>" and says "<reason>"
      And the harness was never started
      And the answer came within the timeout plus the grace period
      And the agent is READY

      Examples:
        | backend | problem                          | reason         |
        | claude  | is missing from PATH             | not found      |
        | codex   | is missing from PATH             | not found      |
        | claude  | is on PATH but is not executable | not executable |
        | codex   | is on PATH but is not executable | not executable |
        | claude  | is on PATH but its interpreter is gone | interpreter not found |
        | codex   | is on PATH but its interpreter is gone | interpreter not found |
        | claude  | is on PATH but its interpreter is not executable | not executable |
        | codex   | is on PATH but its interpreter is not executable | not executable |

  Rule: A CLI that does not read its stdin does not break the request
    A CLI can answer and exit before it reads stdin: an early error, a prompt it took from
    argv, a crash at start-up. A wrapper still writing the prompt then gets EPIPE; the Codex
    SDK crashes on it and the answer is lost. The prompt here is larger than a pipe holds, so
    the write cannot hide in the pipe's buffer: the agent takes EPIPE as "the CLI is gone" and
    answers from what the CLI printed and how it exited.

    A CLI can also stop reading its stdin part way and never exit (stuck in the middle of its
    prompt). A wrapper that writes the prompt in blocking writes waits in one, the pipe full,
    and never looks at its deadline again: the request hangs for good. Written as the pipe
    takes it, the prompt cannot hold the request past its deadline.

    @req:AG-H13
    Scenario: The CLI answers and exits without reading a long prompt
      Given an agent for the "claude" backend with a safety timeout of 20 seconds
      And the harness answers "answered early" without reading stdin, then exits
      When the agent answers a prompt of 1000000 bytes
      Then the response has:
        | key     | value            |
        | status  | 0                |
        | message | "answered early" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

    @req:AG-H21
    Scenario: A CLI that stops reading a long prompt part way is still stopped at the deadline
      Given an agent for the "claude" backend with a timeout of 10 seconds
      And the harness reads 8192 bytes of stdin, then no more, and hangs
      When the agent answers a prompt of 1000000 bytes
      Then the response status is 3
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY


  Rule: A prompt that cannot be written as UTF-8 is refused before any CLI starts, or carried whole
    A CLI reads its prompt as UTF-8. A string can hold what UTF-8 cannot encode: a lone
    surrogate, half of a pair that a JavaScript, Java or C# string cut in two (an emoji
    truncated in the middle). It is not a character. A wrapper that only finds out while
    writing the prompt has started the CLI already and fails with an error about its own
    internals, which the caller cannot act on. Two answers are correct (decision D-33):
    refuse the prompt before any CLI starts, with an error about the prompt and the status of
    a request whose CLI could not be started (4, since none was: status 1 would say the CLI
    reported an error); or carry it to the CLI as the platform writes such a string (a JSON
    escape, `\ud83d`, as the official TypeScript SDK does; U+FFFD, as Node writes it to a pipe),
    the rest of the prompt whole, and answer the request. Over DDS a message is UTF-8 on the
    wire and cannot carry one: there the scenario does not apply.

    @req:AG-H26
    Scenario: A prompt cut in the middle of an emoji is refused before any CLI starts, or carried whole
      Given an agent for the "claude" backend
      When the agent answers a prompt cut in the middle of an emoji
      Then the request was refused with status 4 before any harness started, saying the prompt is not valid text, or the harness got the prompt's text before the cut and the request answered with status 0
      And the agent is READY


  Rule: The CLI's environment is the caller's, minus what must not leak
    A wrapper started from inside a Claude Code session hands `CLAUDECODE=1` on, and the
    `claude` it starts then believes it runs nested inside itself and refuses or misbehaves;
    the agent always removes it (for Codex too, whose commands may start `claude`). API keys
    are the caller's decision: inherited ones reach the CLI unless `strip_env` names them,
    and `env` sets them explicitly. The suite runs every implementation with `CLAUDECODE=1`
    and both API keys (fake values) in its environment (docs/adapter-protocol.md).

    @req:AG-H11
    Scenario Outline: An inherited CLAUDECODE does not reach the CLI
      Given an agent for the "<backend>" backend
      And the implementation inherited "CLAUDECODE"
      When the agent answers "Hello"
      Then the response status is 0
      And the harness saw no "CLAUDECODE"

      Examples:
        | backend |
        | claude  |
        | codex   |

    @req:AG-H12
    Scenario Outline: An inherited API key reaches the CLI unless stripped
      Given an agent for the "<backend>" backend
      And the implementation inherited "<key>"
      When the agent answers "Hello"
      Then the response status is 0
      And the harness saw "<key>" as inherited

      Examples:
        | backend    | key               |
        | claude     | ANTHROPIC_API_KEY |
        | codex      | OPENAI_API_KEY    |
        | gemini     | GEMINI_API_KEY    |
        | gemini-acp | GEMINI_API_KEY    |
        | claude-acp | ANTHROPIC_API_KEY |
        | codex-acp  | OPENAI_API_KEY    |

    @req:AG-H12
    Scenario Outline: A configured API key replaces the inherited one
      Given an agent for the "<backend>" backend that sets "<key>" to "sk-configured"
      When the agent answers "Hello"
      Then the response status is 0
      And the harness saw "<key>" set to "sk-configured"

      Examples:
        | backend    | key               |
        | claude     | ANTHROPIC_API_KEY |
        | codex      | OPENAI_API_KEY    |
        | gemini     | GEMINI_API_KEY    |
        | gemini-acp | GEMINI_API_KEY    |
        | claude-acp | ANTHROPIC_API_KEY |
        | codex-acp  | OPENAI_API_KEY    |

    @req:AG-H12
    Scenario Outline: A stripped API key does not reach the CLI
      Given an agent for the "<backend>" backend that strips "<key>"
      And the implementation inherited "<key>"
      When the agent answers "Hello"
      Then the response status is 0
      And the harness saw no "<key>"

      Examples:
        | backend    | key               |
        | claude     | ANTHROPIC_API_KEY |
        | codex      | OPENAI_API_KEY    |
        | gemini     | GEMINI_API_KEY    |
        | gemini-acp | GEMINI_API_KEY    |
        | claude-acp | ANTHROPIC_API_KEY |
        | codex-acp  | OPENAI_API_KEY    |

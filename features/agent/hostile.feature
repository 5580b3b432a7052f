Feature: Hostile harnesses: the failures real wrappers hit
  Wrappers of coding CLIs break in the same ways again and again; the public issue trackers of
  the Claude Code and Codex SDKs, and of the tools built on them, are full of the same reports.
  Each rule below names one of those failures, says what the agent does instead and why, and
  its scenarios play it with the fake harness for both backends where it applies. Whatever the
  harness does, the agent answers with the right status within the timeout plus the grace
  period, leaves nothing running, and is READY afterwards (decisions D-5 and D-6; the
  scenarios already in decisions.feature cover long lines up to 2 MiB, a stderr flood, a
  grandchild holding stdout, SIGTERM ignored, stdin read to its end, flag-like prompts and
  invalid UTF-8).

  Durations are nominal: the suite multiplies them by its time scale (--time-scale).

  Rule: Stdout is a stream of lines, whatever the harness puts in it
    Wrappers assume every line is one JSON object that arrives whole in one read. Real CLIs
    print blank lines, end without a final newline when they are cut off, and write large
    lines in many pieces or many lines in one piece. Every line that is not a JSON object is
    skipped (seed 001, "Parse Errors"); nothing the harness prints can end the stream early,
    crash the agent, or lose a line that follows.

    @req:AG-H2
    Scenario Outline: Blank and whitespace-only lines between events
      Given an agent for the "<backend>" backend with a timeout of 100 seconds
      And the harness prints blank lines between its events, then answers "after the gaps"
      When the agent answers "Hello"
      Then the response has:
        | key     | value            |
        | status  | 0                |
        | message | "after the gaps" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

      Examples:
        | backend |
        | claude  |
        | codex   |

    @req:AG-H3
    Scenario Outline: The answer on a last line without a newline
      Given an agent for the "<backend>" backend with a timeout of 100 seconds
      And the harness prints the answer "cut short" as its last line, without a newline
      When the agent answers "Hello"
      Then the response has:
        | key     | value       |
        | status  | 0           |
        | message | "cut short" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

      Examples:
        | backend |
        | claude  |
        | codex   |

    @req:AG-H3
    Scenario Outline: Half a JSON object as the last line
      Given an agent for the "<backend>" backend with a timeout of 100 seconds
      And the harness answers "whole answer", then prints half a JSON object and exits
      When the agent answers "Hello"
      Then the response has:
        | key     | value          |
        | status  | 0              |
        | message | "whole answer" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

      Examples:
        | backend |
        | claude  |
        | codex   |

    @req:AG-H4
    Scenario Outline: JSON values that are not objects
      Given an agent for the "<backend>" backend with a timeout of 100 seconds
      And the harness prints JSON values that are not objects, then answers "objects only"
      When the agent answers "Hello"
      Then the response has:
        | key     | value          |
        | status  | 0              |
        | message | "objects only" |
      And the answer came within the timeout plus the grace period
      And the agent is READY

      Examples:
        | backend |
        | claude  |
        | codex   |

    @req:AG-H5
    Scenario Outline: A JSON line nested deeper than any parser's recursion limit
      Given an agent for the "<backend>" backend with a timeout of 100 seconds
      And the harness prints a JSON line nested 100000 levels deep, then answers "still standing"
      When the agent answers "Hello"
      Then the response has:
        | key     | value            |
        | status  | 0                |
        | message | "still standing" |
      And the answer came within the timeout plus the grace period
      And the agent is READY

      Examples:
        | backend |
        | claude  |
        | codex   |

    @req:AG-H6
    Scenario Outline: Ten thousand lines in one write
      Given an agent for the "<backend>" backend with a timeout of 100 seconds
      And the harness prints 10000 numbered texts in one write, then finishes
      When the agent answers "Hello"
      Then the response status is 0
      And the response message is the 10000 numbered texts in order
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

      Examples:
        | backend |
        | claude  |
        | codex   |

    @req:AG-H7
    Scenario Outline: One JSON object written a few bytes at a time, splitting UTF-8 characters
      Given an agent for the "<backend>" backend with a timeout of 100 seconds
      And the harness writes its answer "Größe ✓ 完了 🎉" 3 bytes at a time, 0.1 s apart
      When the agent answers "Hello"
      Then the response has:
        | key     | value            |
        | status  | 0                |
        | message | "Größe ✓ 完了 🎉" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running
      And the agent is READY

      Examples:
        | backend |
        | claude  |
        | codex   |

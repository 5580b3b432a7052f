Feature: Creating an agent: what it cannot work with is refused, by name
  An agent is created for one backend (claude, codex, gemini, or whatever CLIs an
  implementation wraps), and every request it answers runs that backend's CLI within the
  deadline it was given, with the environment it was asked for. GENESIS refuses a backend name
  it does not know when the agent is created (docs/genesis.md, G13.3). The seeds only ever name
  known backends, give deadlines that are durations and variables that have names, so the
  rules here are GENESIS's or ours, and SHOULDs.

  Rule: A backend the agent does not know is refused at creation, by name
    An agent made for a backend it cannot run would fail every request later, or, worse, run
    another CLI than the one asked for and answer as if nothing were wrong. Refused at once,
    with an error that names what was asked for, the caller learns of its typo where it made
    it. The question is asked of every implementation, whatever backends it declares.

    @req:AG-C1
    Scenario: An agent asked for the backend "cobol" is refused with an error that names it
      When an agent is created for the backend "cobol"
      Then the creation is refused with an error that names "cobol"

  Rule: A deadline that is no duration is refused at creation, by name
    A timeout or a grace period is a positive number of seconds. Taken anyway, a deadline of
    -1 seconds stops every request the moment it starts, and one of 0 either does the same or
    never fires: the caller finds out requests later, far from its mistake. Refused at once,
    with an error that names the setting, it learns where it made it (docs/decisions.md,
    D-20). A deadline written as text ("60", as a configuration file may hold it) or as true
    is no number either: read as 60 seconds or as 1, it is a guess the caller never sees. The
    adapter protocol cannot carry such a value (its schema asks for a positive number of
    seconds), so through an adapter the question is not applicable; in-process it is asked,
    and over DDS (a command line, which carries text only) it is asked of the numbers.

    @req:AG-C2
    Scenario Outline: An agent given the <setting> <value> is refused with an error that names it
      When an agent is created with the <setting> set to <value>
      Then the creation is refused with an error that names "<setting>"

      Examples:
        | setting      | value |
        | timeout      | -1    |
        | timeout      | 0     |
        | grace_period | -5    |
        | timeout      | "60"  |
        | grace_period | true  |

  Rule: A long deadline is a deadline all the same, and kept
    A task that may take the night is given a day; an agent that refuses it, or shortens it,
    fails that caller as surely as one that takes -1 (docs/decisions.md, D-20). Where an
    implementation draws its upper line is its own (the reference's is a week); a day is kept.

    @req:AG-C2
    Scenario: An agent given a timeout of a day keeps it
      When an agent is created with the timeout set to 86400
      Then the timeout is 86400 seconds.

  Rule: A variable to strip whose name cannot be one is refused at creation, by name
    `strip_env` names the inherited variables the CLI must not get (API keys a caller keeps to
    itself). A name that cannot be a variable's (empty, or with "=" in it, as a pasted
    `OPENAI_API_KEY=`) matches nothing: taken anyway, the key the caller meant to withhold
    reaches the CLI, and nothing says so. Refused at once, with an error that names the
    setting, the caller sees its mistake (docs/decisions.md, D-20).

    @req:AG-C3
    Scenario Outline: An agent asked to strip the variable <name> is refused with an error that names strip_env
      When an agent is created with the strip_env set to [<name>]
      Then the creation is refused with an error that names "strip_env"

      Examples:
        | name              |
        | "OPENAI_API_KEY=" |
        | ""                |


  Rule: A setting of the wrong kind is refused at creation, by name
    A model, a command and a working directory are text; env maps names to values;
    strip_env is a list of names; an environment value is text without a NUL (no process
    environment can hold one). A caller that passes a number, a single name where a list
    belongs, a list of "NAME=value" lines where a map belongs, or a value read from a binary
    file has made a mistake the agent can see: taken anyway, the model 5 reaches the CLI as
    "5", a single name is read letter by letter as names to strip (and the key it named is
    handed on), the lines set nothing, and a NUL makes every request fail at the start of its
    CLI, far from the setting. Refused at once, with an error that names the setting, the
    caller learns where its mistake is (docs/decisions.md, D-20). A variable's name in env is a
    name as in strip_env (not empty, no "="): `CLI_MODE=` sets nothing the CLI would read. The
    adapter protocol's schema and a DDS command line cannot carry most of these values: there
    those examples are not applicable.

    @req:AG-C4
    Scenario Outline: An agent given <value> as its <setting>, a value of the wrong kind, is refused by name
      When an agent is created with the <setting> set to <value>
      Then the creation is refused with an error that names "<setting>"

      Examples:
        | setting     | value                  |
        | model       | 5                      |
        | command     | ["claude"]             |
        | working_dir | 5                      |
        | strip_env   | "OPENAI_API_KEY"       |
        | strip_env   | 5                      |
        | env         | {"CLI_MODE": 5}        |
        | env         | {"CLI_MODE": "a\u0000b"} |
        | env         | {"CLI_MODE=": "fast"}  |
        | env         | ["CLI_MODE=fast"]      |

  Rule: A working directory that does not exist is named, and no CLI runs elsewhere
    Every request runs its CLI in the working directory the agent was given. One that does not
    exist (a typo, a checkout not made yet) cannot be used: a wrapper that lets the operating
    system find out at the CLI's start reports "cannot start claude", and the caller looks for
    a missing CLI that is there; one that falls back to its own directory runs the CLI, and
    its tools, on files the caller never pointed it at. Whether the agent refuses the
    directory when it is created (as the reference does) or fails each request is the
    implementation's choice: the decision leaves it open (docs/decisions.md, D-20), since a
    directory may be made between the two. A directory removed after the agent was created is
    removed with whatever the agent put in it when it was created (GENESIS makes it a git
    repository): what is judged is the request that finds it gone. What it says names the
    directory and says it is not there (in any words: "not a directory", "No such file or
    directory", ENOENT, "does not exist"), and no CLI is started.

    @req:AG-C5
    Scenario: An agent given a working directory that does not exist names it, and starts no CLI
      Given an agent for the "claude" backend whose working directory does not exist
      When the agent, once created, answers "Hello"
      Then the creation was refused, or the request failed, with an error that names the missing directory
      And the harness was never started

    @req:AG-C5
    Scenario: A working directory removed after the agent was created is named when a request comes
      Given an agent for the "claude" backend whose working directory is removed once it is created
      When the agent, once created, answers "Hello"
      Then the creation was refused, or the request failed, with an error that names the missing directory
      And the harness was never started

  Rule: A variable both set and stripped is never silently lost
    `env` sets variables for the CLI and `strip_env` removes inherited ones. Named in both,
    a variable is a contradiction the caller may not see: a wrapper that sets first and
    strips after hands the CLI neither value, and the setting the caller wrote is lost without
    a word. The agent either refuses to be created, with an error that names the variable (the
    reference: it cannot know which the caller meant), or gives the CLI the value `env` sets
    (stripping the inherited one is then what setting it does); it never drops it
    (docs/decisions.md, D-20).

    @req:AG-C6
    Scenario: An agent asked to set and strip AGENT_TCK_MODE refuses by name, or sets it
      Given an agent for the "claude" backend that sets "AGENT_TCK_MODE" to "fast"
      And the agent strips "AGENT_TCK_MODE" too
      When the agent, once created, answers "Hello"
      Then the creation was refused with an error that names "AGENT_TCK_MODE", or the harness saw "AGENT_TCK_MODE" set to "fast"

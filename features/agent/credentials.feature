Feature: Credentials: the CLI's own login, or an API key
  A coding CLI authenticates either with the login a person made with it (a subscription) or
  with an API key read from its environment, and when both are there it takes the key. An agent
  created with `credentials` "login" keeps every API key of its backend from the CLI, so the
  login is used; one created with "api-key" hands a key on, and there must be one. GENESIS makes
  the same choice at start-up (docs/genesis.md, G01 and G02); the seeds say nothing of it, so
  these are SHOULDs of decisions D-21 and D-22 (docs/decisions.md). Each backend reads its key
  from more than one variable (claude:
  ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN; codex: OPENAI_API_KEY and CODEX_API_KEY; gemini:
  GEMINI_API_KEY and GOOGLE_API_KEY), and the implementation under test inherits all of them
  from the suite.

  Rule: With the CLI's own login, no API key of its backend reaches the CLI
    Withholding only the best-known variable is not enough: the CLI finds the key in the other
    one and bills it. Nothing else changes: HOME holds the login itself, PATH finds the CLI.

    @req:AG-K1
    Scenario: An agent that uses the CLI's login withholds every API key its backend reads
      Given an agent for the "claude" backend with credentials "login"
      And the implementation inherited every API key variable of the agent's backend
      When the agent answers "Hello"
      Then the response status is 0
      And the harness saw none of the API key variables of the agent's backend
      And the harness saw HOME, PATH and the other inherited variables unchanged

  Rule: With an API key, the key reaches the CLI, and an agent without one is refused
    A caller that chose a key and has none would learn it from the first request's failure;
    refused when the agent is created, with the names of the variables it looked at, it learns
    it where it made the mistake.

    @req:AG-K2
    Scenario: An agent that uses an API key hands the inherited keys on
      Given an agent for the "claude" backend with credentials "api-key"
      And the implementation inherited every API key variable of the agent's backend
      When the agent answers "Hello"
      Then the response status is 0
      And the harness saw every API key variable of the agent's backend as inherited

    @req:AG-K2
    Scenario: An agent told to use an API key when none is set is refused, naming the variables
      Given an agent for the "claude" backend with credentials "api-key"
      And the agent strips every API key variable of its backend
      When the agent is created, or refused
      Then the creation is refused with an error that names the API key variables of its backend

  Rule: A credentials mode that cannot be honoured is refused at creation, by name
    "login" while the caller's own env sets a key asks for two opposite things: which one wins
    would be a guess. A mode the agent does not know cannot be honoured at all. Through the
    adapter protocol an unknown mode cannot be sent (its schema names the two), so there that
    scenario is not applicable; over DDS a served agent's env is its own environment, a key set
    there is an inherited one (the first rule), so there the first is not applicable.

    @req:AG-K3
    Scenario: An agent told to use the CLI's login while its env sets a key is refused
      Given an agent for the "claude" backend that sets its first API key variable to "sk-mine"
      When an agent is created with the credentials set to "login"
      Then the creation is refused with an error that names "credentials"

    @req:AG-K3
    Scenario Outline: An agent given the credentials <mode> is refused with an error that names the setting
      Given an agent for the "claude" backend
      When an agent is created with the credentials set to <mode>
      Then the creation is refused with an error that names "credentials"

      Examples:
        | mode           |
        | "subscription" |
        | ""             |

  Rule: Asked to probe, the agent runs the CLI once on its login when created, and uses what works
    GENESIS finds out at start-up whether the CLI's login works, with a short run of the CLI
    that has every API key withheld, and falls back to a key only when it does not (decision
    D-22). Only the run's stream tells: a CLI that is not logged in may say so in its stream and
    still exit 0. Creating an agent asked to probe waits for that one run (the caller asked for
    it; an agent not asked never starts the CLI when created, AG-H18), and the agent says in the
    reason of the state it was created in what it found: the login, or the key it uses instead,
    which is billed per token. The probe is marked, CODING_AGENT_PROBE=1 in its environment and in
    no request's, so whoever counts the CLI's runs (its logs, a bill, this suite) can leave it
    out. With nothing that works the agent is DEGRADED, not refused: the person can still log in,
    and its requests are answered with what the CLI says. When the login does not work, the
    reason quotes what the CLI said of it: the CLI knows why ("Invalid API key", an expired
    token, "Please run /login") and the person reading the reason needs those words, not only
    the kit's summary that the probe failed.

    @req:AG-K4
    Scenario: An agent whose probe completes a turn on the CLI's login uses the login
      Given an agent for the "claude" backend with credentials "probe"
      And the implementation inherited every API key variable of the agent's backend
      When the agent is created
      Then the agent was created READY, its reason naming the login
      And the harness was started once, marked as a probe, with none of the API key variables of the agent's backend
      When the agent answers "Hello"
      Then the response status is 0
      And the harness saw none of the API key variables of the agent's backend
      And the harness's last start was not marked as a probe

    @req:AG-K4
    Scenario Outline: An agent created with credentials "<mode>" runs no probe and marks no request
      Given an agent for the "claude" backend with credentials "<mode>"
      And the implementation inherited every API key variable of the agent's backend
      When the agent answers "Hello"
      Then the response status is 0
      And the harness's last start was not marked as a probe

      Examples:
        | mode    |
        | login   |
        | api-key |

    @req:AG-K5
    Scenario: An agent whose probe fails in the stream, though the CLI exits 0, uses a key that is set
      Given an agent for the "claude" backend with credentials "probe"
      And the implementation inherited every API key variable of the agent's backend
      And the CLI's login does not work: without an API key it reports an authentication failure in its stream and exits 0
      When the agent is created
      Then the agent was created READY, its reason naming the first API key variable of the agent's backend
      And the reason quotes what the CLI said: "Invalid API key"
      When the agent answers "Hello"
      Then the response status is 0
      And the harness saw every API key variable of the agent's backend as inherited

    @req:AG-K6
    Scenario: An agent whose probe fails with no API key set is DEGRADED, and still answers
      Given an agent for the "claude" backend with credentials "probe"
      And the agent strips every API key variable of its backend
      And the CLI's login does not work: without an API key it reports an authentication failure in its stream and exits 0
      When the agent is created
      Then the agent was created DEGRADED, its reason naming every API key variable of the agent's backend
      And the reason quotes what the CLI said: "Invalid API key"
      When the agent answers "Hello"
      Then the response status is 1
      And the agent is DEGRADED

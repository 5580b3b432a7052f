Feature: Creating an agent: a backend it does not know is refused
  An agent is created for one backend (claude, codex, gemini, or whatever CLIs an
  implementation wraps), and every request it answers runs that backend's CLI. GENESIS refuses
  a backend name it does not know when the agent is created (docs/genesis.md, G13.3). The
  seeds only ever name known backends, so this rule is GENESIS's and a SHOULD.

  Rule: A backend the agent does not know is refused at creation, by name
    An agent made for a backend it cannot run would fail every request later, or, worse, run
    another CLI than the one asked for and answer as if nothing were wrong. Refused at once,
    with an error that names what was asked for, the caller learns of its typo where it made
    it. The question is asked of every implementation, whatever backends it declares.

    @req:AG-C1
    Scenario: An agent asked for the backend "cobol" is refused with an error that names it
      When an agent is created for the backend "cobol"
      Then the creation is refused with an error that names "cobol"

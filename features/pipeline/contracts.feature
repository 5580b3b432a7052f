Feature: Pipeline contracts: the YAML the agents exchange
  Seed 002 (an RSpec test-writing pipeline) specifies, by example, the YAML each agent returns
  and the metadata file they enrich in turn. Each contract is a JSON Schema (draft 2020-12) in
  `schemas/contracts/`, and every YAML example of the seed is a fixture in
  `schemas/contracts/examples/` that must validate; `with "A" replaced by "B"` changes the
  first occurrence of A in the example. An error is listed as
  `line:column: json/path: words the message contains`; the list is complete.

  Rule: Every YAML example in the seed is valid
    The seed writes some examples as templates (`status: success | error | skip`,
    `{agent}_completed`); their fixtures spell one alternative out, and say so in a comment.
    The test-reviewer example holds two alternatives separated by `# or`: two fixtures.

    @req:PL-1.2
    Scenario Outline: The seed's example <example> is valid
      Given the seed's example "<example>"
      When it is validated without naming a contract
      Then it is valid
      And the contract used is "<contract>"

      Examples:
        | example                                 | contract          |
        | response.success.yml                    | response          |
        | response.skip.yml                       | response          |
        | discovery-agent.success.yml             | discovery-agent   |
        | code-analyzer.seed.yml                  | code-analyzer     |
        | test-architect.seed.yml                 | test-architect    |
        | test-implementer.seed.yml               | test-implementer  |
        | test-reviewer.passed.yml                | test-reviewer     |
        | test-reviewer.failed.yml                | test-reviewer     |

  Rule: The response envelope: status, data, error only on error, skip_reason only on skip
    "Every agent returns YAML in final message: status: success | error | skip, data,
    error: only if status: error, skip_reason: only if status: skip." (seed 002, Agent Response)

    @req:PL-1.1
    Scenario: A skip carries its reason; an error carries its message
      Given a "response" document:
        """yaml
        status: skip
        skip_reason: "No testable methods found"
        """
      When it is validated
      Then it is valid
      Given a "response" document:
        """yaml
        status: skip
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:1: $: 'skip_reason' is a required property
        """
      Given a "response" document:
        """yaml
        status: error
        data: {}
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:1: $: 'error' is a required property
        """

    @req:PL-1.1
    Scenario: error and skip_reason belong to their own status only
      Given a "response" document:
        """yaml
        status: success
        data: {}
        error: "nothing went wrong"
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:1: $.error: 'error' is allowed only with status: error
        """
      Given a "response" document:
        """yaml
        status: error
        error: "Cannot determine testable methods"
        skip_reason: "nothing to do"
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:1: $.skip_reason: 'skip_reason' is allowed only with status: skip
        """

  Rule: Status words are exactly the seed's; near misses get a hint (decision D-10)
    Agents written by hand or by a model drift to `skipped` or `ok`. An orchestrator that
    compares with the seed's words would treat them as unknown, so the validator rejects them,
    and names the seed's word so the fix is obvious.

    @req:PL-1.4
    Scenario Outline: "<written>" is refused with a hint towards "<seed>"
      Given a "response" document:
        """yaml
        status: <written>
        skip_reason: "Nothing to do"
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:9: $.status: did you mean '<seed>'?
        """

      Examples:
        | written | seed    |
        | skipped | skip    |
        | ok      | success |

  Rule: Enumerated values are the seed's words
    @req:PL-1.3
    Scenario Outline: <field>: "<good>" is valid, "<bad>" is not
      Given the seed's example "<example>" with "<good>" replaced by "<bad>"
      When it is validated
      Then it is invalid with these errors:
        """
        <where>: is not one of <allowed>
        """

      Examples:
        | example                      | field             | good                       | bad                       | where                                                   | allowed                                    |
        | discovery-agent.success.yml  | method_mode       | method_mode: new           | method_mode: added        | 27:22: $.method_waves[0].items[1].method_mode           | 'new', 'modified', 'unchanged'             |
        | metadata.seed.yml            | characteristic    | type: boolean              | type: bool                | 114:15: $.methods[1].characteristics[0].type            | 'boolean', 'presence', 'enum', 'range'     |
        | metadata.seed.yml            | setup type        | type: model # model        | type: factory # model     | 101:17: $.methods[0].characteristics[0].setup.type      | 'model', 'data', 'action'                  |
        | code-analyzer.seed.yml       | behavior type     | type: success              | type: happy_path          | 31:13: $.data.behaviors[3].type                         | 'terminal', 'success', 'side_effect'       |
        | code-analyzer.seed.yml       | side-effect type  | subtype: email             | subtype: sms              | 49:16: $.data.behaviors[6].subtype                      | 'webhook', 'email'                         |

    @req:PL-1.3
    Scenario: A zone is green, yellow or red
      Given a "metadata" document:
        """yaml
        complexity: { zone: orange, loc: 85, methods: 4 }
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:21: $.complexity.zone: 'orange' is not one of 'green', 'yellow', 'red'
        """

  Rule: The discovery-agent stops with a reason
    @req:PL-1.8
    Scenario: A stop names one of the seed's two reasons
      Given the seed's example "discovery-agent.stop-red-zone.yml"
      When it is validated
      Then it is valid
      Given a "discovery-agent" document:
        """yaml
        status: stop
        reason: too_complex
        """
      When it is validated
      Then it is invalid with these errors:
        """
        2:9: $.reason: 'red_zone_new_code', 'user_cancelled'
        """
      Given a "discovery-agent" document:
        """yaml
        status: skip
        skip_reason: "the discovery-agent cannot skip"
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:9: $.status: is not one of 'success', 'stop', 'error'
        """

  Rule: The error response
    @req:PL-1.5
    Scenario: An error response has its message, and may explain and suggest
      Given the seed's example "error.seed.yml"
      When it is validated without naming a contract
      Then it is valid
      And the contract used is "error"
      Given an "error" document:
        """yaml
        status: error
        details: "File has no public methods"
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:1: $: 'error' is a required property
        """

  Rule: The metadata file, enriched agent by agent
    A metadata file is valid at every stage of the pipeline: a field becomes required once the
    agent that writes it has set its completion marker.
    The seed says "method_mode must be present in methods[]", but its own examples of
    methods[] leave it out; the examples are what agents copy, so method_mode is checked when
    present (new | modified | unchanged) and not required.

    @req:PL-1.6
    Scenario: The seed's full metadata file is valid, and the code-analyzer's marker needs its fields
      Given the seed's example "metadata.seed.yml"
      When it is validated without naming a contract
      Then it is valid
      And the contract used is "metadata"
      Given a "metadata" document:
        """yaml
        source_file: app/services/payment_processor.rb
        class_name: PaymentProcessor
        complexity: { zone: green, loc: 180, methods: 8 }
        spec_path: spec/services/payment_processor_spec.rb
        methods_to_analyze: []
        automation:
          discovery_agent_completed: true
          code_analyzer_completed: true
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:1: $: 'slug' is a required property
        1:1: $: 'source_mtime' is a required property
        1:1: $: 'behaviors' is a required property
        1:1: $: 'methods' is a required property
        """

    @req:PL-1.6
    Scenario: A misspelt metadata key points at the key and names the right one
      Given a "metadata" document:
        """yaml
        source_file: app/models/payment.rb
        spec_pth: spec/models/payment_spec.rb
        """
      When it is validated
      Then it is invalid with these errors:
        """
        2:1: $.spec_pth: unexpected key 'spec_pth'; did you mean 'spec_path'?
        """

  Rule: Code artifacts are where RSpec expects them
    "Standard RSpec locations: spec/**/*_spec.rb, spec/factories/*.rb" (seed 002, Code
    Artifacts).

    @req:PL-1.11
    Scenario: A spec path outside spec/ is refused
      Given a "metadata" document:
        """yaml
        spec_path: test/models/payment_test.rb
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:12: $.spec_path: 'test/models/payment_test.rb' does not match
        """

  Rule: Debug-only fields stay out of the metadata file
    "Downstream agents do not receive cross_class_deps (debug-only)" (seed 002, Dependency
    Concepts Distinction): the discovery-agent's response has it, the metadata file does not.

    @req:PL-1.12
    Scenario: cross_class_deps in methods_to_analyze is refused
      Given a "metadata" document:
        """yaml
        methods_to_analyze:
          - name: process
            method_mode: modified
            line_range: [10, 35]
            selected: true
            cross_class_deps: [{ class: Payment }]
        """
      When it is validated
      Then it is invalid with these errors:
        """
        6:5: $.methods_to_analyze[0].cross_class_deps: unexpected key 'cross_class_deps'
        """

  Rule: Completion and skip markers
    @req:PL-1.10
    Scenario: Markers use snake_case agent names and a string version
      Given the seed's example "metadata.completion-markers.yml"
      When it is validated
      Then it is valid
      Given the seed's example "metadata.skip-markers.yml"
      When it is validated
      Then it is valid
      Given a "metadata" document:
        """yaml
        automation:
          code-analyzer_completed: true
          test_architect_version: 1.0
        """
      When it is validated
      Then it is invalid with these errors:
        """
        2:3: $.automation.code-analyzer_completed: agent names use snake_case
        3:27: $.automation.test_architect_version: 1.0 is not of type 'string'
        """

  Rule: isolation-decider's test_config
    The seed names what isolation-decider writes (methods[].test_config: test_level + isolation,
    confidence, decision_trace) but shows no response; the response shape is ours.

    @req:PL-1.9
    Scenario: A test_config needs test_level and isolation
      Given the seed's example "isolation-decider.ours.yml"
      When it is validated without naming a contract
      Then it is valid
      And the contract used is "isolation-decider"
      Given the seed's example "isolation-decider.ours.yml" with "isolation: build_stubbed" replaced by "isolaton: build_stubbed"
      When it is validated
      Then it is invalid with these errors:
        """
        8:9: $.data.methods[0].test_config: 'isolation' is a required property
        """

  Rule: The factory-agent's contract is ours (decision D-10)
    The seed puts the factory-agent between test-architect and test-implementer but gives it
    no contract. Ours mirrors test-implementer's `files_created`: the factory files, what was
    done to each, and the traits added. Its schema says it is ours, so nobody mistakes it for
    the seed's.

    @req:PL-1.7
    Scenario: A factory-agent response lists its factory files
      Given the seed's example "factory-agent.ours.yml"
      When it is validated without naming a contract
      Then it is valid
      And the contract used is "factory-agent"
      And the "factory-agent" schema's title says "ours: decision D-10"
      Given the seed's example "factory-agent.ours.yml" with "spec/factories/payments.rb" replaced by "app/models/payment.rb"
      When it is validated
      Then it is invalid with these errors:
        """
        5:13: $.data.factories[0].path: does not match
        """

Feature: Pipeline contracts: the rules JSON Schema cannot say
  A document can match every schema and still lie: name a behavior that does not exist, hang a
  characteristic under a parent it does not have, count methods it does not list. The validator
  checks these rules too, with the same error format (`line:column: json/path: message`).

  Background:
    Given the behavior bank of a metadata file:
      """yaml
      behaviors:
        - id: returns_completed
          description: "returns completed status"
          type: terminal
          enabled: true
          used_by: 1
        - id: processes_payment
          description: "processes the payment"
          type: success
          enabled: true
          used_by: 1
      """

  Rule: Behavior references resolve in the behavior bank
    "behaviors[] is the centralized behavior bank. All behavior references use behavior_id
    (terminal, happy path, side effects)." (seed 002, Progressive Enrichment)

    @req:PL-2.1
    Scenario: A behavior_id names a behavior of the bank
      Given its methods:
        """yaml
        methods:
          - name: process
            type: instance
            analyzed: true
            side_effects:
              - type: email
                behavior_id: sends_receipt
            characteristics:
              - name: payment_status
                description: "payment status"
                type: enum
                values:
                  - value: completed
                    description: "completed"
                    terminal: true
                    behavior_id: returns_completed
                  - value: pending
                    description: "pending"
                    terminal: false
                    behavior_id: processes_payments
                setup: { type: model, class: Payment }
                level: 1
                depends_on: null
                when_parent: null
        """
      When it is validated as "metadata"
      Then it is invalid with these errors:
        """
        18:22: $.methods[0].side_effects[0].behavior_id: behavior_id 'sends_receipt' is not the id of any entry of behaviors[]
        31:26: $.methods[0].characteristics[0].values[1].behavior_id: behavior_id 'processes_payments' is not the id
        """

    @req:PL-2.2
    Scenario: Behavior ids are unique
      Given the seed's example "code-analyzer.seed.yml" with "id: payment_gateway_charge_succeeds" replaced by "id: processes_payment"
      When it is validated
      Then it is invalid with these errors:
        """
        53:11: $.data.behaviors[7].id: behavior id 'processes_payment' is already used by behaviors[3]
        """

  Rule: A terminal branch names its behavior
    @req:PL-2.3
    Scenario: A value with terminal: true has a behavior_id
      Given its methods:
        """yaml
        methods:
          - name: refund
            type: instance
            analyzed: true
            characteristics:
              - name: refund_eligible
                description: "refund eligibility"
                type: boolean
                values:
                  - value: true
                    description: "eligible"
                    terminal: false
                    behavior_id: processes_payment
                  - value: false
                    description: "not eligible"
                    terminal: true
                setup: { type: model, class: Transaction }
                level: 1
                depends_on: null
                when_parent: null
        """
      When it is validated as "metadata"
      Then it is invalid with these errors:
        """
        25:13: $.methods[0].characteristics[0].values[1]: terminal value false has no behavior_id
        """

  Rule: A characteristic hangs under a parent of its own method, at the next level
    In the seed's example `gateway_result` (level 2) depends on `payment_status` (level 1) and
    applies when the payment is `pending`, one of `payment_status`'s values.

    @req:PL-2.4
    Scenario: depends_on names a characteristic of the same method and when_parent its values
      Given the seed's example "code-analyzer.seed.yml" with "when_parent: [pending]" replaced by "when_parent: [refunded]"
      When it is validated
      Then it is invalid with these errors:
        """
        119:25: $.data.methods[0].characteristics[1].when_parent[0]: when_parent value 'refunded' is not a value of 'payment_status'
        """
      Given the seed's example "code-analyzer.seed.yml" with "depends_on: payment_status" replaced by "depends_on: refund_eligible"
      When it is validated
      Then it is invalid with these errors:
        """
        118:23: $.data.methods[0].characteristics[1].depends_on: depends_on 'refund_eligible' is not a characteristic of the same method
        """

    @req:PL-2.4
    Scenario: when_parent without depends_on
      Given the seed's example "code-analyzer.seed.yml" with "when_parent: null" replaced by "when_parent: [pending]"
      When it is validated
      Then it is invalid with these errors:
        """
        96:24: $.data.methods[0].characteristics[0].when_parent: when_parent is set but depends_on is null
        """

    @req:PL-2.5
    Scenario: level follows depends_on
      Given the seed's example "code-analyzer.seed.yml" with "level: 2" replaced by "level: 3"
      When it is validated
      Then it is invalid with these errors:
        """
        117:18: $.data.methods[0].characteristics[1].level: level 3 but depends_on 'payment_status' is at level 1: expected 2
        """
      Given the seed's example "code-analyzer.seed.yml" with "level: 1" replaced by "level: 2"
      When it is validated
      Then it is invalid with these errors:
        """
        94:18: $.data.methods[0].characteristics[0].level: level 2 with depends_on null: a characteristic without a parent is at level 1
        117:18: $.data.methods[0].characteristics[1].level: level 2 but depends_on 'payment_status' is at level 2: expected 3
        """

  Rule: The slug is the source path's
    "Slug convention: Source path with / → _, no extension." (seed 002, Metadata Files)

    @req:PL-2.6
    Scenario: slug and source_file agree
      Given a "metadata" document:
        """yaml
        slug: app_services_payment
        source_file: app/services/payment_processor.rb
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:7: $.slug: expected 'app_services_payment_processor'
        """

    @req:PL-2.6
    Scenario: A source path that leads out of the project has no slug: the error is at source_file
      The schema takes any relative path ending in `.rb`; one with a `..` could put its
      metadata file outside the metadata directory (decision D-14), so it has no slug to
      match. The validator says so at `source_file`, and does not crash. Found by mutation
      testing (docs/mutation.md): a validator that let that refusal escape passed every
      scenario.
      Given a "metadata" document:
        """yaml
        slug: secrets
        source_file: app/../../secrets.rb
        """
      When it is validated
      Then it is invalid with one error, at "$.source_file", saying "'..'"

  Rule: Waves follow the cross-class dependencies
    "Waves: discovery-agent orders files so dependencies are tested first." (seed 002). An item
    that depends on a class must come in a later wave than every method of that class.

    @req:PL-2.7
    Scenario: No item depends on a class of its own or a later wave
      Given the seed's example "discovery-agent.success.yml" with "wave: 1" replaced by "wave: 0"
      When it is validated
      Then it is invalid with these errors:
        """
        45:13: $.method_waves[1].items[0].cross_class_deps[0]: PaymentProcessor#process (wave 0) depends on Payment, but Payment#validate is in wave 0
        """

    @req:PL-2.7
    Scenario: A wave item that is no mapping, or a wave numbered with no integer, is an error of the schema, not a crash
      The order of waves is read from each wave's number and its items' classes. An item
      written as a bare method id, or a wave whose number is a word, is already an error of
      the schema there; the check of the order passes over what it cannot read, and the
      validator answers with that error instead of crashing. Whatever else it says of such a
      document (whether the summary's counts take in what is no item) is its own. Found by
      mutation testing (docs/mutation.md): a check that read every item of a numbered wave, or
      every item of a wave that was a mapping, crashed on these, and no scenario gave one.
      Given a "discovery-agent" document:
        """yaml
        status: success
        method_waves:
          - wave: 0
            items:
              - Payment#validate
        """
      When it is validated
      Then its errors include:
        """
        5:9: $.method_waves[0].items[0]: is not of type 'object'
        """
      Given the seed's example "discovery-agent.success.yml" with "wave: 1" replaced by "wave: one"
      When it is validated
      Then its errors include:
        """
        33:11: $.method_waves[1].wave: is not of type 'integer'
        """

  Rule: The summary counts what the document lists
    @req:PL-2.8
    Scenario: Every count of the discovery summary is checked
      Given the seed's example "discovery-agent.success.yml" with "selected_methods: 3" replaced by "selected_methods: 2"
      When it is validated
      Then it is invalid with these errors:
        """
        80:21: $.summary.selected_methods: summary says selected_methods: 2, the document lists 3
        """
      Given the seed's example "discovery-agent.success.yml" with "by_zone: { green: 1, yellow: 1, red: 0 }" replaced by "by_zone: { green: 2, yellow: 1, red: 0 }"
      When it is validated
      Then it is invalid with these errors:
        """
        83:21: $.summary.by_zone.green: summary says green: 2, the document lists 1 green files
        """
      Given the seed's example "discovery-agent.success.yml" with "by_zone: { green: 1, yellow: 1, red: 0 }" replaced by "by_zone: { green: 1, yellow: 1, red: 1 }"
      When it is validated
      Then it is invalid with these errors:
        """
        83:40: $.summary.by_zone.red: summary says red: 1, the document lists 0 red files
        """

  Rule: Markers are true, written true
    A marker is either written `true` or not written: `false` would claim nothing. YAML 1.1
    readers (PyYAML, Ruby's Psych) take `yes` and `on` for true, YAML 1.2 readers for strings:
    the same file would mean two things, so the validator asks for `true`. A marker is checked
    wherever it stands among the automation keys.

    @req:PL-2.9
    Scenario: false, yes and on are not markers
      Given a "metadata" document:
        """yaml
        automation:
          test_architect_completed: false
          test_implementer_completed: yes
          test_reviewer_skipped: on
          test_reviewer_skip_reason: "No testable methods found"
        """
      When it is validated
      Then it is invalid with these errors:
        """
        2:29: $.automation.test_architect_completed: marker test_architect_completed must be true, not false
        3:31: $.automation.test_implementer_completed: marker test_implementer_completed is written 'yes': write true
        4:26: $.automation.test_reviewer_skipped: marker test_reviewer_skipped is written 'on': write true
        """
      Given a "metadata" document:
        """yaml
        automation:
          test_reviewer_skip_reason: "No testable methods found"
          test_reviewer_skipped: on
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:26: $.automation.test_reviewer_skipped: marker test_reviewer_skipped is written 'on': write true
        """

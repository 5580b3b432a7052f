Feature: The pipeline protocol: how the orchestrator runs the agents
  Seed 002's agents communicate through their responses (YAML, in context) and through one
  metadata file per source file. Here agents are scripted: each answers a YAML response and
  may write to the metadata file; unless a scenario says otherwise an agent answers
  `status: success` and writes nothing but its markers. Everything happens in a sandbox
  directory, the project root of the run.

  Background:
    Given the source file "app/services/payment_processor.rb", last modified at 1699351530

  Rule: Agents run one at a time, in the seed's order
    "Agents run one at a time, in order. Each depends on previous output." (seed 002,
    Sequential Execution), in the order of its Agent Sequence.

    @req:PL-4.1
    Scenario: The order is the seed's, whatever order the agents are handed over in
      Given the agents are handed over in the order "test-reviewer, factory-agent, code-analyzer, test-implementer, discovery-agent, test-architect, isolation-decider"
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "completed"
      And the agents ran one at a time, in this order: "discovery-agent, code-analyzer, isolation-decider, test-architect, factory-agent, test-implementer, test-reviewer"

  Rule: One metadata file per source file, named by its slug
    "Location: tmp/rspec_metadata/{slug}.yml. Slug convention: Source path with / → _, no
    extension. app/services/payment.rb → app_services_payment" (seed 002, Metadata Files)

    @req:PL-4.2
    Scenario Outline: The metadata file of <source> is <file>
      Given the source file "<source>", last modified at 1699351530
      When the pipeline runs on "<source>"
      Then the outcome is "completed"
      And the only metadata file is "<file>"

      Examples:
        | source                   | file                                          |
        | app/services/payment.rb  | tmp/rspec_metadata/app_services_payment.yml   |
        | lib/billing/v2/refund.rb | tmp/rspec_metadata/lib_billing_v2_refund.yml  |

  Rule: Each agent leaves its markers and its output in the metadata file
    "Each agent writes to metadata file: automation: {agent}_completed: true,
    {agent}_version" (seed 002, Completion Markers); "Each agent enriches metadata
    sequentially" (Progressive Enrichment).

    @req:PL-4.3
    Scenario: Markers and writes accumulate, agent after agent
      Given the "code-analyzer", version "3.0", writes:
        """yaml
        slug: app_services_payment_processor
        source_mtime: 1699351530
        """
      And the "test-implementer" writes:
        """yaml
        automation:
          warnings:
            - "test_implementer: Factory trait :premium not found"
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "completed"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" contains:
        """yaml
        slug: app_services_payment_processor
        source_mtime: 1699351530
        automation:
          discovery_agent_completed: true
          discovery_agent_version: "1.0"
          code_analyzer_completed: true
          code_analyzer_version: "3.0"
          isolation_decider_completed: true
          test_architect_completed: true
          factory_agent_completed: true
          test_implementer_completed: true
          test_reviewer_completed: true
          warnings:
            - "test_implementer: Factory trait :premium not found"
        """

  Rule: Before starting, each agent checks its prerequisites
    "Before starting, each agent MUST verify: 1. Previous agent's {agent}_completed: true
    exists 2. Required input files exist. If check fails → exit with error, pipeline stops."
    (seed 002, Prerequisite Check). The input files are the source file and, after the first
    agent, the metadata file. A re-run starts from a given agent ("Re-run pipeline from failed
    agent", Recovery Protocol), so the marker is read from the file, not remembered.

    @req:PL-4.4
    Scenario: A re-run from test-architect needs the isolation-decider's marker
      Given the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" holds:
        """yaml
        automation:
          discovery_agent_completed: true
          code_analyzer_completed: true
        """
      When the pipeline is re-run from "test-architect" on "app/services/payment_processor.rb"
      Then the outcome is "error", for "test-architect", saying "isolation_decider_completed: true is missing"
      And no agent ran

    @req:PL-4.4
    Scenario: A re-run from test-architect starts when the isolation-decider's marker is there
      Given the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" holds:
        """yaml
        automation:
          discovery_agent_completed: true
          code_analyzer_completed: true
          isolation_decider_completed: true
        """
      When the pipeline is re-run from "test-architect" on "app/services/payment_processor.rb"
      Then the outcome is "completed"
      And the agents ran one at a time, in this order: "test-architect, factory-agent, test-implementer, test-reviewer"

    @req:PL-4.4
    Scenario: A re-run from test-architect whose metadata file cannot be read stops with an error
      The marker is read from the file, so a file that is no YAML (here cut off in the middle
      of a list) cannot give it: the pipeline stops with an error, and no agent runs. (Which
      step says so is the implementation's: the cache check reads the file too, before any
      agent.) Found by mutation testing (docs/mutation.md): the reference's handling of such
      a file ran in no scenario.
      Given the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" holds:
        """yaml
        automation: [discovery_agent_completed
        """
      When the pipeline is re-run from "test-architect" on "app/services/payment_processor.rb"
      Then the outcome is "error"
      And no agent ran

    @req:PL-4.4
    Scenario Outline: A pipeline given only <agents> runs them all
      The first agent a pipeline is given needs the marker of the agent before it in the
      seed's sequence, as a re-run from it does (the discovery-agent, first of all, needs
      none); each later one, the marker of the agent before it in the run. Found by mutation
      testing (docs/mutation.md): no scenario gave a pipeline fewer than the seven agents, and
      the reference could take another agent's marker.
      Given only the agents "<agents>"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" holds:
        """yaml
        automation:
          discovery_agent_completed: true
          code_analyzer_completed: true
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "completed"
      And the agents ran one at a time, in this order: "<agents>"

      Examples:
        | agents                                           |
        | isolation-decider, test-architect, factory-agent |
        | discovery-agent, test-architect                  |

    @req:PL-4.4
    Scenario Outline: A pipeline given the agents from <first> on needs the <marker> marker
      Given only the agents "<first>, <second>"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" holds:
        """yaml
        automation:
          code_analyzer_completed: true
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "error", for "<first>", saying "<marker>: true is missing"
      And no agent ran

      Examples:
        | first          | second            | marker                      |
        | test-architect | factory-agent     | isolation_decider_completed |
        | code-analyzer  | isolation-decider | discovery_agent_completed   |

    @req:PL-4.5
    Scenario: The source file disappears: the next agent does not start
      Given the "code-analyzer" removes "app/services/payment_processor.rb"
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "error", for "isolation-decider", saying "app/services/payment_processor.rb does not exist"
      And the agents ran one at a time, in this order: "discovery-agent, code-analyzer"

    @req:PL-4.5
    Scenario: No metadata file: a re-run from the code-analyzer does not start
      When the pipeline is re-run from "code-analyzer" on "app/services/payment_processor.rb"
      Then the outcome is "error", for "code-analyzer", saying "app_services_payment_processor.yml does not exist"
      And no agent ran

  Rule: Fail-fast
    "If any agent fails (returns status: error), entire pipeline stops. No retry logic."
    (seed 002, Fail-Fast)

    @req:PL-4.6
    Scenario: test-architect fails: nothing after it runs, and it is not retried
      Given the "test-architect" answers:
        """yaml
        status: error
        error: "Cannot determine testable methods"
        details: "File has no public methods"
        suggestion: "Check if class is meant to be tested"
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "error", for "test-architect", saying "Cannot determine testable methods"
      And the agents ran one at a time, in this order: "discovery-agent, code-analyzer, isolation-decider, test-architect"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" has no "test_architect_completed" marker

  Rule: An answer outside the seed's envelope stops the pipeline, as an error would (ours)
    The seed gives every answer one envelope: `status: success | error | skip`, the
    discovery-agent's `success | stop | error`, with an `error` message when it fails and a
    `skip_reason` when it skips. An answer that is not YAML, names a status the agent cannot
    give, or leaves out the field its status needs says nothing the next agent can rely on:
    the pipeline stops there, as it does on `status: error`, with an error of that agent
    (the outcome names it); nothing after it runs, and its marker is not written (decision
    D-14). Taken as a success, a half-written answer would let the agents after it build on
    nothing. Found by mutation testing (docs/mutation.md): no scenario gave such an answer.

    @req:PL-4.14
    Scenario Outline: The test-architect answers <what>: the pipeline stops with an error of the test-architect
      Given the "test-architect" answers:
        """yaml
        <answer>
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the pipeline stops with an error of the "test-architect"
      And the agents ran one at a time, in this order: "discovery-agent, code-analyzer, isolation-decider, test-architect"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" has no "test_architect_completed" marker

      Examples:
        | what                                  | answer                              |
        | a status the seed does not have       | status: done                        |
        | the discovery-agent's stop            | {status: stop, reason: "red zone"}  |
        | an error without its message          | status: error                       |
        | a skip without its reason             | status: skip                        |
        | something that is not YAML            | {status: [success                   |
        | a list instead of a map               | [status, success]                   |

    @req:PL-4.14
    Scenario: The test-architect crashes before it answers: the pipeline stops with an error of the test-architect
      An agent is code of its own, and may fail instead of answering: the pipeline then
      stops as for an answer outside the envelope, in that agent's name, and nothing after it
      runs. Found by mutation testing (docs/mutation.md): the reference's handling of a crash
      ran in no scenario.
      Given the "test-architect" crashes before it answers, saying "out of tokens"
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the pipeline stops with an error of the "test-architect"
      And the agents ran one at a time, in this order: "discovery-agent, code-analyzer, isolation-decider, test-architect"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" has no "test_architect_completed" marker

    @req:PL-4.14
    Scenario Outline: The discovery-agent answers <what>: nothing after it runs
      Given the "discovery-agent" answers:
        """yaml
        <answer>
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the pipeline stops with an error of the "discovery-agent"
      And the agents ran one at a time, in this order: "discovery-agent"
      And the sandbox holds no metadata file

      Examples:
        | what                      | answer                                             |
        | skip, which it cannot     | {status: skip, skip_reason: "nothing to discover"} |
        | a stop without its reason | status: stop                                       |

  Rule: Skip is success
    "Agent MAY skip work if prerequisites met but work unnecessary ... Skip = success. Next
    agent runs." (seed 002, Skip Scenario)

    @req:PL-4.7
    Scenario: The factory-agent skips; the test-implementer runs
      Given the "factory-agent" answers:
        """yaml
        status: skip
        skip_reason: "No testable methods found"
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "completed"
      And the agents ran one at a time, in this order: "discovery-agent, code-analyzer, isolation-decider, test-architect, factory-agent, test-implementer, test-reviewer"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" contains:
        """yaml
        automation:
          factory_agent_completed: true
          factory_agent_skipped: true
          factory_agent_skip_reason: "No testable methods found"
        """

  Rule: Discovery can stop the pipeline
    "Red zone + new? yes → STOP: suggest refactoring; User cancelled? yes → STOP: user
    cancelled" (seed 002, Full Pipeline Flow); the discovery-agent returns `status: stop` with
    `reason: red_zone_new_code | user_cancelled`.

    @req:PL-4.8
    Scenario Outline: Discovery stops with <reason>
      Given the "discovery-agent" answers:
        """yaml
        status: stop
        reason: <reason>
        message: "<message>"
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "stopped", with the reason "<reason>"
      And the agents ran one at a time, in this order: "discovery-agent"

      Examples:
        | reason            | message                                    |
        | red_zone_new_code | Red zone class with new code: refactor it  |
        | user_cancelled    | The user cancelled the selection           |

  Rule: Cached metadata is used only when valid
    The seed's flowchart (Cache Validation): metadata exists? → source_mtime == file mtime? →
    all *_completed = true? → cache valid, skip analysis; any "no" → run full analysis. "All"
    means every agent of the pipeline: a file an earlier run left half done is not a cache.

    @req:PL-4.9
    Scenario Outline: <case>
      Given a metadata file with source_mtime <mtime> and the markers of "<completed>"
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "<outcome>"
      And <count> agents ran

      Examples:
        | case                                  | mtime      | completed                                                                                                          | outcome   | count |
        | valid cache: no agent runs            | 1699351530 | discovery-agent, code-analyzer, isolation-decider, test-architect, factory-agent, test-implementer, test-reviewer | cached    | 0     |
        | the source changed since: full run    | 1699351000 | discovery-agent, code-analyzer, isolation-decider, test-architect, factory-agent, test-implementer, test-reviewer | completed | 7     |
        | an agent did not complete: full run   | 1699351530 | discovery-agent, code-analyzer, isolation-decider, test-architect, factory-agent, test-implementer                | completed | 7     |

    @req:PL-4.9
    Scenario: The metadata of a source file that is gone is no cache
      A metadata file whose markers are all there, its source file deleted since: the cache is
      valid only for a file whose mtime matches, so with no file there is no cache (what the
      agents then do with a file that is not there is PL-4.5's). Found by mutation testing
      (docs/mutation.md): a reference that looked at the file's mtime without asking whether
      the file was there ended in a crash of its own.
      Given a metadata file with source_mtime 1699351530 and the markers of "discovery-agent, code-analyzer, isolation-decider, test-architect, factory-agent, test-implementer, test-reviewer"
      And the source file "app/services/payment_processor.rb" is gone
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is not "cached"

    @req:PL-4.9
    Scenario: No metadata: full analysis
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "completed"
      And 7 agents ran

  Rule: Metadata writes are atomic (ours)
    The metadata file is the pipeline's persistent state, read for cache validation and by
    every next agent. A write cut short must not leave half a file: the previous file stays
    whole until the new one replaces it in one step.

    @req:PL-4.10
    Scenario: The test-architect crashes while its metadata is being written
      Given the "test-architect" crashes while its metadata file is being written
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "error", for "test-architect", saying "metadata file not written"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" contains:
        """yaml
        automation:
          isolation_decider_completed: true
        """
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" has no "test_architect_completed" marker
      And "tmp/rspec_metadata" holds no other file

    @req:PL-4.10
    Scenario: A write that fails at its last step leaves no temporary file behind
      A write goes to a temporary file that is then renamed over the metadata file; when the
      rename fails, the temporary file is removed. Here the metadata file's place is taken by
      a folder, which no file can be renamed over. The pipeline does not complete (an error of
      the agent whose metadata it was, or a refusal before any agent runs: either tells the
      user), and the metadata folder holds nothing but that folder. Found by mutation testing
      (docs/mutation.md): a reference that left the temporary file behind passed every
      scenario, since none made a write fail after it had begun.
      Given the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" is a folder
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is not "completed"
      And "tmp/rspec_metadata" holds no other file

    @req:PL-4.10
    Scenario: The test-architect writes metadata too deep to be read again
      What is written is read again, by the next agent and by the cache check on the next
      run, with the limits every document has (PL-3.4: 64 levels). Metadata nested past them
      is not written: the agent that wrote it is in error, and the previous file stays whole.
      Here `deep` holds 65 lists, one inside the other. Found by mutation testing
      (docs/mutation.md): no scenario wrote such metadata, and the reference's refusal of it
      ran in none.
      Given the "test-architect" writes:
        """yaml
        deep: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
        """
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the outcome is "error", for "test-architect", saying "not written"
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" contains:
        """yaml
        automation:
          isolation_decider_completed: true
        """
      And the metadata file "tmp/rspec_metadata/app_services_payment_processor.yml" has no "test_architect_completed" marker
      And "tmp/rspec_metadata" holds no other file

  Rule: Metadata stays under tmp/rspec_metadata (ours)
    The slug is derived from a path an agent or a user wrote. A `..` (or an absolute path)
    could name a file outside the project or give one file two slugs: such a path is refused
    before any agent runs or any file is written. So is a `tmp/` that is a symbolic link out of
    the project (a checkout can carry one): metadata written through it would land wherever
    the link points.

    @req:PL-4.11
    Scenario Outline: The source path "<source>" is refused
      When the pipeline runs on "<source>"
      Then the pipeline is refused, saying "<words>"
      And no agent ran
      And the sandbox holds no metadata file

      Examples:
        | source                          | words                      |
        | ../outside/payment.rb           | '..'                       |
        | app/../../etc/payment.rb        | '..'                       |
        | /etc/payment.rb                 | must be relative           |

    @req:PL-4.11
    Scenario: An empty source path, or one with white space around it, is refused
      An empty path names no file (joined to the project, it names the project's own folder)
      and has no slug. A path with a space or a line break around it is a path copied with
      what surrounded it (a shell command's output ends in a line break): taken as written, it
      names another file than the one meant, whose slug can be that one's (`payment.rb` and
      `payment.rb` with a line break after it are both `payment`). Either is refused before
      any agent runs or any file is written (decision D-14). Found by mutation testing
      (docs/mutation.md): the reference crashed on an empty path, and ran the agents on a
      path with a line break after it, when its check was turned from `or` to `and`; no
      scenario gave either.
      When the pipeline runs on an empty source path
      Then the outcome is "refused"
      And no agent ran
      And the sandbox holds no metadata file
      When the pipeline runs on "app/services/payment_processor.rb" with a line break after it
      Then the outcome is "refused"
      And no agent ran
      And the sandbox holds no metadata file
      When the pipeline runs on "app/services/payment_processor.rb" with a space before it
      Then the outcome is "refused"
      And no agent ran
      And the sandbox holds no metadata file

    @req:PL-4.11
    Scenario: A tmp folder that leads out of the project is refused
      Found by mutation testing (docs/mutation.md): the reference's check of where tmp/ leads
      could be deleted with every scenario passing.
      Given the sandbox's "tmp" is a symbolic link to a folder outside it
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the pipeline is refused, saying "leads outside the base directory"
      And no agent ran
      And the sandbox holds no metadata file

  Rule: The pipeline's agents are the seed's (ours)
    The seed names seven agents in one sequence. An agent it does not name has no place in
    that sequence, no marker the next agent could check and no contract for its response; a
    re-run from an agent the pipeline was not given has nowhere to start. Either is refused,
    naming the agent, before any agent runs or any file is written (decision D-14). Found by
    mutation testing (docs/mutation.md): no scenario gave an agent the seed does not have, and
    the reference's check of it could be emptied.

    @req:PL-4.12
    Scenario: An agent the seed does not have is refused by name
      Given one more agent, "deploy-agent", that the seed's sequence does not have
      When the pipeline runs on "app/services/payment_processor.rb"
      Then the pipeline is refused, saying "'deploy-agent'"
      And no agent ran
      And the sandbox holds no metadata file

    @req:PL-4.12
    Scenario: A re-run from an agent the pipeline was not given is refused by name
      Given only the agents "discovery-agent, code-analyzer"
      When the pipeline is re-run from "test-architect" on "app/services/payment_processor.rb"
      Then the pipeline is refused, saying "'test-architect'"
      And no agent ran
      And the sandbox holds no metadata file

  Rule: Two source files that share a slug never share a metadata file (ours)
    The seed's slug joins a path's parts with `_`: `app/services_payment.rb` and
    `app/services/payment.rb` are both `app_services_payment`. A metadata file says whose it
    is (`source_file`); one that names another file is neither run on, taken as a cache, nor
    overwritten, and the pipeline ends in an error that names both (decision D-14). Found by
    mutation testing (docs/mutation.md): the reference's check could be deleted and every
    scenario still passed.

    @req:PL-4.13
    Scenario: The metadata file of another source file with the same slug is left alone
      Given the source file "app/services/payment.rb", last modified at 1699351530
      And the metadata file "tmp/rspec_metadata/app_services_payment.yml" holds:
        """yaml
        source_file: app/services_payment.rb
        source_mtime: 1699351530
        slug: app_services_payment
        automation:
          discovery_agent_completed: true
          code_analyzer_completed: true
          isolation_decider_completed: true
          test_architect_completed: true
          factory_agent_completed: true
          test_implementer_completed: true
          test_reviewer_completed: true
        """
      When the pipeline runs on "app/services/payment.rb"
      Then the outcome is "error", before any agent, saying "app/services_payment.rb"
      And the outcome is "error", before any agent, saying "app/services/payment.rb"
      And no agent ran
      And the metadata file "tmp/rspec_metadata/app_services_payment.yml" is as it was

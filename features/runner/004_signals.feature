Feature: Runner: completion signals in the agent's output
  An autonomous agent says it is done, or stuck, by printing a marker. Seed 004 ("Agent
  Testing Design - AgentRunner Interface") defines ParseSignal: COMPLETE when the output
  contains "<promise>COMPLETE</promise>"; otherwise BLOCKED when it contains
  "<promise>BLOCKED:" followed later by "</promise>", with the reason between them trimmed
  ("strings.TrimSpace"); otherwise NONE. The seed gives this as code; every scenario below
  follows from that code, and says which part of it. Decision D-9: COMPLETE is checked
  before BLOCKED.

  Rule: The two signals, exactly as ParseSignal finds them

    @req:RUN-SIG-1
    Scenario: COMPLETE anywhere in the output
      Seed 004, ParseSignal: "if strings.Contains(output, "<promise>COMPLETE</promise>")
      { return SignalComplete, "" }". The marker counts wherever it stands.
      Given the agent output:
        """
        Working... all balls are done. <promise>COMPLETE</promise> Bye.
        """
      When the signal is parsed
      Then the signal is "COMPLETE" with an empty reason

    @req:RUN-SIG-2
    Scenario: BLOCKED with its reason, trimmed
      Seed 004, ParseSignal: "Extract reason between "BLOCKED:" and "</promise>"" and
      "reason := strings.TrimSpace(...)".
      Given the agent output:
        """
        Tried to install. <promise>BLOCKED:    npm not found	</promise>
        """
      When the signal is parsed
      Then the signal is "BLOCKED" with reason "npm not found"

    @req:RUN-SIG-3
    Scenario: COMPLETE wins when both signals are present, BLOCKED first
      Seed 004, ParseSignal checks COMPLETE before BLOCKED; decision D-9 makes that order
      the spec: an agent that finished its last ball after reporting a problem is done.
      Given the agent output:
        """
        <promise>BLOCKED: tests fail</promise>
        Fixed it.
        <promise>COMPLETE</promise>
        """
      When the signal is parsed
      Then the signal is "COMPLETE" with an empty reason

    @req:RUN-SIG-3
    Scenario: COMPLETE wins when both signals are present, COMPLETE first
      Seed 004, ParseSignal; decision D-9: the order in the output does not matter.
      Given the agent output:
        """
        <promise>COMPLETE</promise>
        <promise>BLOCKED: nothing left to do</promise>
        """
      When the signal is parsed
      Then the signal is "COMPLETE" with an empty reason

    @req:RUN-SIG-8
    Scenario: The first BLOCKED marker gives the reason
      Seed 004, ParseSignal: "strings.Index(output, "<promise>BLOCKED:")" finds the first
      marker, and the reason ends at the first "</promise>" after it.
      Given the agent output:
        """
        <promise>BLOCKED: no network</promise> and also <promise>BLOCKED: no disk</promise>
        """
      When the signal is parsed
      Then the signal is "BLOCKED" with reason "no network"

  Rule: Anything else is no signal

    @req:RUN-SIG-4
    Scenario: Output without a marker is NONE
      Seed 004, ParseSignal: "return SignalNone, """.
      Given the agent output:
        """
        Ball 1 done. Moving on to ball 2.
        """
      When the signal is parsed
      Then the signal is "NONE" with an empty reason

    @req:RUN-SIG-4
    Scenario: BLOCKED without a closing tag is NONE
      Seed 004, ParseSignal: the reason is taken only "if end != -1", that is when a
      "</promise>" follows; otherwise the function falls through to NONE.
      Given the agent output:
        """
        <promise>BLOCKED: npm not found
        and the output ends here
        """
      When the signal is parsed
      Then the signal is "NONE" with an empty reason

    @req:RUN-SIG-5
    Scenario Outline: Markers in another case or spacing are not signals
      Seed 004, ParseSignal matches with strings.Contains and strings.Index: byte for byte.
      An implementation that accepted variants would stop a loop on text that merely
      mentions a signal; the agent is told the exact markers in its prompt.
      Given the agent output "<output>"
      When the signal is parsed
      Then the signal is "NONE" with an empty reason

      Examples:
        | output                                |
        | <promise>complete</promise>           |
        | <PROMISE>COMPLETE</PROMISE>           |
        | <promise> COMPLETE</promise>          |
        | <promise>COMPLETE </promise>          |
        | < promise>COMPLETE</promise>          |
        | <promise>blocked: npm</promise>       |
        | <promise> BLOCKED: npm</promise>      |
        | <promise>BLOCKED : npm</promise>      |
        | <promise>BLOCKED: npm</ promise>      |
        | promise COMPLETE                      |

    @req:RUN-SIG-6
    Scenario Outline: BLOCKED with an empty reason is still BLOCKED
      Seed 004, ParseSignal: the trimmed text between the markers is the reason, whatever
      it is; nothing in the seed turns an empty reason into NONE. The loop still stops.
      Given the agent output "<output>"
      When the signal is parsed
      Then the signal is "BLOCKED" with an empty reason

      Examples:
        | output                           |
        | <promise>BLOCKED:</promise>      |
        | <promise>BLOCKED:    </promise>  |

  Rule: Signals across lines

    @req:RUN-SIG-7
    Scenario: A BLOCKED reason that spans lines keeps its inner newlines
      Seed 004, ParseSignal: the reason is everything between the markers, newlines
      included; TrimSpace removes whitespace only at both ends.
      Given the agent output:
        """
        <promise>BLOCKED:
          npm not found
          and no network
        </promise>
        """
      When the signal is parsed
      Then the signal is "BLOCKED" with reason:
        """
        npm not found
          and no network
        """

    @req:RUN-SIG-7
    Scenario: A COMPLETE marker broken by a newline is not a signal
      Seed 004, ParseSignal: "<promise>COMPLETE</promise>" must appear as one string.
      Given the agent output:
        """
        <promise>
        COMPLETE
        </promise>
        """
      When the signal is parsed
      Then the signal is "NONE" with an empty reason

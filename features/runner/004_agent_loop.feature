Feature: Runner: the agent loop
  Seed 004's loop runs the agent on a session, one iteration at a time, until the agent says
  it is done. Each iteration builds a prompt from the session store (context, progress,
  balls), runs the runner once with the caller's trust flag and per-iteration timeout, then:
  COMPLETE ends the loop without error, BLOCKED ends it with an error naming the reason,
  all balls complete ends it without error, otherwise the next iteration starts. Reaching
  the maximum number of iterations is not an error.

  These scenarios are the seed's test examples, each naming the Go test it comes from. As in
  the seed, the runner is scripted (the seed's MockRunner): the doc string under "the runner
  is scripted with" lists its results in order, each {"output", "signal": "NONE" | "COMPLETE" |
  "BLOCKED", "reason"}; once they are used up it answers COMPLETE. A scripted result may also
  stand for what a real run does to the session: "complete_balls" (ids the agent finished),
  "append_progress" (a line the agent logged), or "fail" (the run could not start at all).
  The seed's helper setupSessionWithBalls(id, n) is "a session ID with n balls": it is
  described as "Test session with n balls" and holds pending balls "test-ID-i" with intent
  "Task i for ID".

  Rule: The loop ends on a signal, and only the runner's signal or the balls end it early

    @req:RUN-LOOP-1
    Scenario: The loop stops when the agent signals COMPLETE
      Seed 004, TestAgentRun_CompletesOnSignal: one ball, "--iterations 5", the mock answers
      COMPLETE; "require.NoError" and "mock.AssertCallCount(t, 1) // Stopped after first
      iteration".
      Given a session "test-session" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "COMPLETE", "output": "Working... <promise>COMPLETE</promise>"}]
        """
      When the loop runs with at most 5 iterations
      Then the loop ends without error
      And the runner was called 1 time

    @req:RUN-LOOP-2
    Scenario: The loop stops with an error naming the reason when the agent signals BLOCKED
      Seed 004, TestAgentRun_ExitsOnBlocked: "require.Error(t, err)", "require.Contains(t,
      err.Error(), "npm not found")", two calls.
      Given a session "blocked-test" with 2 balls
      And the runner is scripted with:
        """json
        [{"signal": "NONE", "output": "Starting..."},
         {"signal": "BLOCKED", "reason": "npm not found",
          "output": "<promise>BLOCKED: npm not found</promise>"}]
        """
      When the loop runs with at most 10 iterations
      Then the loop fails with an error containing "npm not found"
      And the runner was called 2 times

    @req:RUN-LOOP-3
    Scenario: The loop iterates until the agent signals COMPLETE
      Seed 004, TestAgentRun_IteratesUntilComplete: three results without a signal, then
      COMPLETE; no error, four calls.
      Given a session "multi-test" with 3 balls
      And the runner is scripted with:
        """json
        [{"signal": "NONE", "output": "Ball 1 done"},
         {"signal": "NONE", "output": "Ball 2 done"},
         {"signal": "NONE", "output": "Ball 3 done"},
         {"signal": "COMPLETE", "output": "<promise>COMPLETE</promise>"}]
        """
      When the loop runs with at most 10 iterations
      Then the loop ends without error
      And the runner was called 4 times

    @req:RUN-LOOP-4
    Scenario: The loop stops after the maximum number of iterations, without error
      Seed 004, TestAgentRun_RespectsMaxIterations: "require.NoError(t, err) // Max
      iterations is not an error", three calls with "--iterations 3". Decision D-9.
      Given a session "max-test" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "NONE", "output": "Working..."},
         {"signal": "NONE", "output": "Still working..."},
         {"signal": "NONE", "output": "More work..."}]
        """
      When the loop runs with at most 3 iterations
      Then the loop ends without error
      And the runner was called 3 times

    @req:RUN-LOOP-4
    Scenario: The maximum holds while the runner still has results to give
      Seed 004, TestAgentRun_RespectsMaxIterations, with more scripted results than
      iterations, so the count cannot come from the script running out.
      Given a session "max-test" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "NONE"}, {"signal": "NONE"}, {"signal": "NONE"},
         {"signal": "NONE"}, {"signal": "NONE"}]
        """
      When the loop runs with at most 3 iterations
      Then the loop ends without error
      And the runner was called 3 times

    @req:RUN-LOOP-9
    Scenario: The loop stops when every ball of the session is complete
      Seed 004, the loop: "if allBallsComplete(sessionID) { ... return nil }" after an
      iteration without a signal.
      Given a session "done-test" with 2 balls
      And the runner is scripted with:
        """json
        [{"signal": "NONE", "output": "Ball 1 done", "complete_balls": ["test-done-test-1"]},
         {"signal": "NONE", "output": "Ball 2 done", "complete_balls": ["test-done-test-2"]},
         {"signal": "NONE", "output": "Nothing left"}]
        """
      When the loop runs with at most 10 iterations
      Then the loop ends without error
      And the runner was called 2 times

    @req:RUN-MOCK-1
    Scenario: A scripted runner whose results are used up answers COMPLETE
      Seed 004, MockRunner.Run: "// Default: signal complete if no more responses"; the
      summary: "Safe defaults - Mock signals COMPLETE if responses exhausted". Decision D-9.
      Given a session "short-script" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "NONE", "output": "Working..."}]
        """
      When the loop runs with at most 5 iterations
      Then the loop ends without error
      And the runner was called 2 times

    @req:RUN-LOOP-11
    Scenario: A run that cannot start stops the loop with an error
      Seed 004, the loop: "if err != nil { return fmt.Errorf("agent execution failed: %w",
      err) }".
      Given a session "broken-cli" with 1 ball
      And the runner is scripted with:
        """json
        [{"fail": "cannot start 'claude': not found on PATH"}]
        """
      When the loop runs with at most 5 iterations
      Then the loop fails with an error containing "agent execution failed"
      And the loop fails with an error containing "cannot start 'claude'"
      And the runner was called 1 time

  Rule: A session with nothing to do never runs the agent

    @req:RUN-LOOP-6
    Scenario: An empty session exits at once without calling the agent
      Seed 004, TestAgentRun_EmptySessionExitsImmediately: "require.NoError" and
      "require.Len(t, mock.Calls, 0, "Agent should not be called for empty session")".
      Decision D-9.
      Given a session "empty-test" described as "No balls"
      And the runner is scripted with:
        """json
        []
        """
      When the loop runs with at most 5 iterations
      Then the loop ends without error
      And the runner was never called

    @req:RUN-LOOP-12
    Scenario: A session whose balls are all complete does not call the agent
      Our reading of seed 004's empty-session test together with its allBallsComplete check:
      a session with no ball left to do is as empty as one with no balls, and running the
      agent on it would spend an iteration on nothing. Level SHOULD.
      Given a session "finished" with 2 balls, all complete
      And the runner is scripted with:
        """json
        [{"signal": "NONE"}]
        """
      When the loop runs with at most 5 iterations
      Then the loop ends without error
      And the runner was never called

  Rule: A loop that ends without error says how many iterations it ran
    The seed's loop prints its progress ("Progress: iteration 2/5 complete", "Reached max
    iterations (5)"); ours answers the number. It is the number of times the runner was
    called: a caller that stops at a maximum, or reports what a night's run did, reads it.
    Level SHOULD.

    @req:RUN-LOOP-13
    Scenario: A loop that ends on COMPLETE says after how many iterations
      Given a session "count-test" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "NONE"}, {"signal": "NONE"}, {"signal": "COMPLETE"}]
        """
      When the loop runs with at most 10 iterations
      Then the runner was called 3 times
      And the loop reports 3 iterations

    @req:RUN-LOOP-13
    Scenario: A loop that ends when every ball is complete says after how many iterations
      Given a session "count-done" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "NONE"}, {"signal": "NONE", "complete_balls": ["test-count-done-1"]}]
        """
      When the loop runs with at most 10 iterations
      Then the runner was called 2 times
      And the loop reports 2 iterations

    @req:RUN-LOOP-13
    Scenario: A loop that reaches its maximum says so many iterations
      Given a session "count-max" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "NONE"}, {"signal": "NONE"}, {"signal": "NONE"}]
        """
      When the loop runs with at most 2 iterations
      Then the runner was called 2 times
      And the loop reports 2 iterations

    @req:RUN-LOOP-13
    Scenario: A loop with nothing to do says it ran no iteration
      Given a session "count-nothing" with 2 balls, all complete
      And the runner is scripted with:
        """json
        [{"signal": "NONE"}]
        """
      When the loop runs with at most 5 iterations
      Then the runner was never called
      And the loop reports 0 iterations

  Rule: The runner gets the prompt and the options the loop was given

    @req:RUN-LOOP-5
    Scenario: The prompt holds the session's context, progress, balls and the instructions
      Seed 004, TestAgentRun_PromptContainsRequiredSections: the session "Epic description"
      with context "Custom context\nMultiple lines", progress "Prior work done", and the ball
      "juggler-test-1" ("Build feature X", criteria A and B, high priority, pending); the
      first call's prompt contains every string the seed asserts.
      Given a session "prompt-test" described as "Epic description"
      And its context is:
        """
        Custom context
        Multiple lines
        """
      And its progress is:
        """
        Prior work done
        """
      And a ball "juggler-test-1" with intent "Build feature X", priority "high" and acceptance criteria:
        | Criterion A |
        | Criterion B |
      And the runner is scripted with:
        """json
        [{"signal": "COMPLETE"}]
        """
      When the loop runs with at most 1 iteration
      Then the prompt of call 1 contains each of:
        | <context>                   |
        | Epic description            |
        | Custom context              |
        | <progress>                  |
        | Prior work done             |
        | <balls>                     |
        | Build feature X             |
        | Criterion A                 |
        | <instructions>              |
        | ONE BALL PER ITERATION      |
        | <promise>COMPLETE</promise> |

    @req:RUN-LOOP-10
    Scenario: Each iteration's prompt is built from the session as it is then
      Seed 004, the loop: "prompt, err := generateAgentPrompt(sessionID)" runs inside the
      loop, so what the agent recorded in one iteration is in the next one's prompt.
      Given a session "progress-test" with 2 balls
      And the runner is scripted with:
        """json
        [{"signal": "NONE", "append_progress": "Finished task 1 for progress-test"},
         {"signal": "COMPLETE"}]
        """
      When the loop runs with at most 5 iterations
      Then the prompt of call 1 does not contain "Finished task 1 for progress-test"
      And the prompt of call 2 contains each of:
        | Finished task 1 for progress-test |

    @req:RUN-LOOP-7
    Scenario: Without trust, the runner is not trusted
      Seed 004, TestAgentRun_TrustFlagPassedToRunner: "Without --trust ...
      assert.False(t, mock.Calls[0].Options.Trust)". As the seed's flag is left off, the loop
      is told nothing about trust (the protocol's settings leave it out): not trusting is
      the default, so a caller who forgets the setting gives no agent its permissions.
      Given a session "trust-test" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "COMPLETE"}]
        """
      When the loop runs with at most 1 iteration
      Then call 1 was not trusted

    @req:RUN-LOOP-7
    Scenario: With trust, the runner is trusted
      Seed 004, TestAgentRun_TrustFlagPassedToRunner: "With --trust ...
      assert.True(t, mock.Calls[0].Options.Trust)".
      Given a session "trust-test" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "COMPLETE"}]
        """
      When the loop runs trusted with at most 1 iteration
      Then call 1 was trusted

    @req:RUN-LOOP-8
    Scenario: Every iteration gets the per-iteration timeout
      Seed 004, the loop: "AgentRunner.Run(ctx, prompt, agent.RunOptions{Trust: trustFlag,
      Timeout: timeout})" in every iteration: the timeout bounds each run, not the loop.
      How a run enforces it is RUN-OUT-4.
      Given a session "timeout-test" with 1 ball
      And the runner is scripted with:
        """json
        [{"signal": "NONE"}, {"signal": "NONE"}, {"signal": "NONE"}]
        """
      When the loop runs with at most 3 iterations and a per-iteration timeout of 30 seconds
      Then the runner was called 3 times
      And every call had a timeout of 30 seconds

Feature: Runner: one loop iteration as one run of the claude CLI
  Seed 004's production runner (ClaudeRunner) runs "claude" once per iteration with a fixed
  command line, the prompt on stdin, and returns the output (stdout and stderr), the exit code
  and the completion signal parsed from the output. "Return nil error even on non-zero exit -
  agent may have output". These scenarios run the runner for real, against the fake harness
  placed on PATH as "claude", and check what the harness recorded: its arguments and stdin.

  How our runner differs from the seed's Go code, and why, is stated where it matters: the
  output is stdout followed by the tail of stderr (the reference keeps the last 4 KiB of
  stderr, decision D-6, so memory stays bounded); the run has a deadline; a CLI that cannot
  be started is an error. The seed also copies the output to the terminal as it arrives
  (io.MultiWriter(os.Stdout, ...)); that is presentation, which the loop does not depend on,
  and it is not specified.

  Rule: The command line is the seed's

    @req:RUN-CMD-1
    Scenario: The flags, the autonomous system prompt, and "-p -"
      Seed 004, ClaudeRunner.Run: args "--disable-slash-commands", "--setting-sources", "",
      "--append-system-prompt", autonomousSystemPrompt, "-p", "-", then, untrusted,
      "--permission-mode", "acceptEdits". The system prompt is the seed's
      autonomousSystemPrompt, word for word.
      Given a fake claude on PATH that prints:
        """
        done
        """
      When the Claude runner runs
      Then the harness was started as "claude" with the arguments:
        """json
        ["--disable-slash-commands", "--setting-sources", "",
         "--append-system-prompt",
         "CRITICAL: You are an autonomous agent.\nDO NOT ask questions. DO NOT summarize. DO NOT wait for confirmation.\nSTART WORKING IMMEDIATELY. Execute the workflow in prompt.md without any preamble.",
         "-p", "-", "--permission-mode", "acceptEdits"]
        """

    @req:RUN-CMD-2
    Scenario: A trusted run skips permission prompts
      Seed 004: "if opts.Trust { args = append(args, "--dangerously-skip-permissions") }".
      Given a fake claude on PATH that prints:
        """
        done
        """
      And the runner is trusted
      When the Claude runner runs
      Then the arguments after "-p -" are:
        """json
        ["--dangerously-skip-permissions"]
        """

    @req:RUN-CMD-3
    Scenario: An untrusted run accepts edits and nothing more
      Seed 004: "else { args = append(args, "--permission-mode", "acceptEdits") }".
      Given a fake claude on PATH that prints:
        """
        done
        """
      When the Claude runner runs
      Then the arguments after "-p -" are:
        """json
        ["--permission-mode", "acceptEdits"]
        """

    @req:RUN-CMD-4
    Scenario: A model override comes last
      Seed 004: "if opts.Model != "" { args = append(args, "--model", opts.Model) }".
      Given a fake claude on PATH that prints:
        """
        done
        """
      And the runner is trusted
      And the runner uses the model "claude-opus-4-1"
      When the Claude runner runs
      Then the arguments after "-p -" are:
        """json
        ["--dangerously-skip-permissions", "--model", "claude-opus-4-1"]
        """

    @req:RUN-CMD-5
    Scenario: The prompt goes on stdin, whole, and never on the command line
      Seed 004: "cmd.Stdin = strings.NewReader(prompt)" with "-p -". A prompt on stdin
      cannot be read as a flag and has no length limit (decision D-5).
      Given a fake claude on PATH that prints:
        """
        done
        """
      When the Claude runner runs with the prompt:
        """
        --help
        <context>
        Build feature X
        </context>
        """
      Then the harness read the prompt on stdin
      And the prompt is not among the arguments

  Rule: claude runs without the variable that says it is nested
    Claude Code sets CLAUDECODE in the shell it runs commands in; a claude started with it
    believes it runs nested in Claude Code. A loop started from inside a Claude Code session
    (as a developer trying it would) must not hand it on, as the agent does not (AG-H11).
    Level SHOULD (decision D-18).

    @req:RUN-CMD-6
    Scenario: An inherited CLAUDECODE does not reach claude
      Given a fake claude on PATH that prints:
        """
        done
        """
      And the implementation inherited "CLAUDECODE"
      When the Claude runner runs
      Then the harness saw no "CLAUDECODE"

  Rule: A model that cannot be one is refused before claude starts
    The model goes on claude's command line after "--model". An empty one, or one that holds
    a NUL, cannot be a model's name, and no process can be given a NUL; one that starts with
    "-" is read by claude as an option (a model "--dangerously-skip-permissions" would lift
    the permission prompts of an untrusted run). Refused at once, with an error that names
    the model, the caller learns of its mistake where it made it (decision D-20, as for the
    agent's settings, AG-C4). Level SHOULD.

    @req:RUN-CMD-7
    Scenario Outline: The runner given the model <model> refuses it, by name, and starts nothing
      Given a fake claude on PATH that prints:
        """
        done
        """
      And the runner's model is <model>
      When the Claude runner is asked to run
      Then the run is refused with an error that names "model"
      And the harness was never started

      Examples:
        | model                            |
        | ""                               |
        | "--dangerously-skip-permissions" |
        | "claude-opus-4-1\u0000"          |

  Rule: The result carries the output, the exit code and the signal

    @req:RUN-OUT-1
    Scenario: The output is stdout then stderr, the run is waited for, and its signal is parsed
      Seed 004: "cmd.Stdout = io.MultiWriter(os.Stdout, &output); cmd.Stderr =
      io.MultiWriter(os.Stderr, &output)" then "signal, reason := ParseSignal(output.String())".
      Our output puts all of stdout first, then stderr: one buffer written by two pipes has no
      defined order anyway. Without a timeout the seed sets no deadline ("if timeout > 0 {
      ctx, cancel = context.WithTimeout(ctx, timeout) }") and "err := cmd.Run()" waits for
      the process: a claude that takes half a real second before its last line (whatever the
      run's time scale) is waited for, and its exit code and whole output are the run's.
      Given a fake claude on PATH that prints:
        """
        Ball 3 done.
        """
      And it writes to stderr:
        """
        warning: slow disk
        """
      And it then runs for 0.5 real seconds
      And it then prints:
        """
        <promise>COMPLETE</promise>
        """
      When the Claude runner runs
      Then the run output is:
        """
        Ball 3 done.
        <promise>COMPLETE</promise>
        warning: slow disk
        """
      And the run exit code is 0
      And the run was not stopped by a timeout
      And the run signal is "COMPLETE" with an empty reason

    @req:RUN-OUT-2
    Scenario: A non-zero exit is a result that still carries the output
      Seed 004: "Return nil error even on non-zero exit - agent may have output".
      Given a fake claude on PATH that prints:
        """
        <promise>BLOCKED: npm not found</promise>
        """
      And it writes to stderr:
        """
        Error: command failed
        """
      And it exits with code 3
      When the Claude runner runs
      Then the run exit code is 3
      And the run output is:
        """
        <promise>BLOCKED: npm not found</promise>
        Error: command failed
        """
      And the run signal is "BLOCKED" with reason "npm not found"

    @req:RUN-OUT-6
    Scenario Outline: A run killed by <signal> reports exit code -1 and keeps its output
      Seed 004, ClaudeRunner.Run: "exitCode = exitErr.ExitCode()", which Go gives as -1 for a
      process killed by a signal, then "}, nil // Return nil error even on non-zero exit -
      agent may have output". SIGHUP, signal 1, is the one whose negative number is -1
      itself (a closed terminal sends it); SIGINT and SIGPIPE are signals a process may
      handle or ignore (Python ignores SIGPIPE): the exit code is claude's death, whatever
      the runner itself does with them.
      Given a fake claude on PATH that prints:
        """
        partial work
        """
      And it dies by <signal>
      When the Claude runner runs
      Then the run exit code is -1
      And the run output is:
        """
        partial work
        """

      Examples:
        | signal  |
        | SIGKILL |
        | SIGHUP  |
        | SIGINT  |
        | SIGPIPE |

    @req:RUN-OUT-3
    Scenario Outline: A run killed by <signal> names the signal
      Beside the seed's -1 (RUN-OUT-6), we name the signal, so the cause is not lost
      (decision D-16). Level SHOULD.
      Given a fake claude on PATH that prints:
        """
        partial work
        """
      And it dies by <signal>
      When the Claude runner runs
      Then the run was killed by "<signal>"

      Examples:
        | signal  |
        | SIGKILL |
        | SIGHUP  |
        | SIGINT  |
        | SIGPIPE |

    @req:RUN-OUT-4
    Scenario: A run that outlives its per-iteration timeout is stopped and keeps its output
      Seed 004, RunOptions: "Timeout time.Duration // Per-iteration timeout", enforced through
      exec.CommandContext. Ours: at the deadline the process group gets SIGTERM, then SIGKILL
      after a grace period (decision D-6); the result says the run timed out and keeps what
      was printed. Level SHOULD.
      Given a fake claude on PATH that prints:
        """
        thinking...
        """
      And it then runs for 3000 seconds
      And a per-iteration timeout of 25 seconds
      When the Claude runner runs
      Then the run was stopped by its timeout
      And the harness received SIGTERM
      And the run output is:
        """
        thinking...
        """

    @req:RUN-OUT-4
    Scenario: A run without a per-iteration timeout is not stopped
      Seed 004: "if timeout > 0" the run gets a deadline; without one, none. A run that takes
      its time is waited for and keeps its output (the reference's own upper line is a week).
      Half a real second, whatever the run's time scale: a deadline that slipped in would
      have to be shorter than that to show here.
      Given a fake claude on PATH that prints:
        """
        thinking...
        """
      And it then runs for 0.5 real seconds
      When the Claude runner runs
      Then the run exit code is 0
      And the run output is:
        """
        thinking...
        """

    @req:RUN-OUT-5
    Scenario: A claude that cannot be started is an error, not an empty success
      Seed 004's Run returns exit code 0 and no error when the command cannot even start
      (the error is not an ExitError), so a loop would iterate over empty outputs. Ours
      fails the run with an error naming the command. Level SHOULD.
      Given no claude on PATH
      When the Claude runner runs
      Then the runner cannot start, with an error naming "claude"

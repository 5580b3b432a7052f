Feature: Agent decisions where the seeds are silent
  The seeds 000 and 001 fix the request cycle but leave open what real CLIs print, how tools
  are counted, which failures are errors, how the prompt is delivered, how the process is
  supervised and what happens to a second request. DESIGN.md decides (D-1 to D-7); each rule
  below states one decision and its reason, and its scenarios check it.

  The seeds' scenarios mostly name the "claude" backend, as an example: text accumulation,
  tool counting, working directory, timeouts, crashes, parse errors and recovery mean the same
  for every CLI. Each of those runs once for every backend the implementation declares (the
  `backends` of its requirement in requirements.yaml), so a claude-only and a codex-only
  implementation can each be conformant. A seed scenario that only one CLI can show (its own
  event names, Claude's result text) runs for that one and is not applicable to the other.

  Durations are nominal: the suite multiplies them by its time scale (--time-scale) so the
  feature runs in seconds; --time-scale 1 runs them literally.

  Rule: D-1 The agent reads what the real CLIs print
    Flat shapes that no real CLI prints are not the spec. Claude Code prints system events of
    several subtypes, thinking blocks, rate-limit events, and its result object with `type`
    late in the key order; Codex prints warnings before the turn starts. A wrapper that only
    handles the happy shape breaks on the first real transcript. The transcripts below show
    the fields that matter; the harness prints each line with the other fields the pinned CLI
    prints (taken from a recorded line of the same shape), in the order shown, so every line
    is valid against schemas/cli/. And in the order the CLIs print them: Claude's result
    repeats the turn's last message (decision D-34), so where a seed's done event carries a
    text, that text is the last message before it.

    @req:AG-D1.1
    Scenario: A Claude Code transcript with a tool call, as the CLI prints it
      Given an agent for the "claude" backend
      And the harness prints:
        """
        {"type":"system","subtype":"hook_response","hook_name":"SessionStart:startup","stdout":"","stderr":"","exit_code":0,"session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10","uuid":"4a1f0c3e-0000-4000-8000-000000000001"}
        {"type":"system","subtype":"init","cwd":"/work/project","session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10","tools":["Bash","Read","Write"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"acceptEdits","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.330","uuid":"4a1f0c3e-0000-4000-8000-000000000002"}
        {"type":"assistant","message":{"id":"msg_01A","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"The user wants a file count.","signature":"c2ln"}],"usage":{"input_tokens":20,"output_tokens":8}},"parent_tool_use_id":null,"session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10","uuid":"4a1f0c3e-0000-4000-8000-000000000003"}
        {"type":"assistant","message":{"id":"msg_01A","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Let me count them."}],"usage":{"input_tokens":20,"output_tokens":12}},"parent_tool_use_id":null,"session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10","uuid":"4a1f0c3e-0000-4000-8000-000000000004"}
        {"type":"assistant","message":{"id":"msg_01A","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_01Q","name":"Bash","input":{"command":"ls | wc -l","description":"Count files"}}],"usage":{"input_tokens":20,"output_tokens":30}},"parent_tool_use_id":null,"session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10","uuid":"4a1f0c3e-0000-4000-8000-000000000005"}
        {"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01Q","type":"tool_result","content":"2","is_error":false}]},"parent_tool_use_id":null,"session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10","uuid":"4a1f0c3e-0000-4000-8000-000000000006","tool_use_result":{"stdout":"2","stderr":"","interrupted":false}}
        {"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1763740800},"uuid":"4a1f0c3e-0000-4000-8000-000000000007","session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10"}
        {"type":"assistant","message":{"id":"msg_01B","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"There are 2 files."}],"usage":{"input_tokens":40,"output_tokens":9}},"parent_tool_use_id":null,"session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10","uuid":"4a1f0c3e-0000-4000-8000-000000000008"}
        {"duration_api_ms":2210,"duration_ms":3140,"is_error":false,"num_turns":2,"result":"There are 2 files.","session_id":"b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10","stop_reason":"end_turn","total_cost_usd":0.0061,"type":"result","subtype":"success","usage":{"input_tokens":60,"output_tokens":59},"uuid":"4a1f0c3e-0000-4000-8000-000000000009"}
        """
      When the agent answers "How many files are here?"
      Then the response has:
        | key        | value                                  |
        | message    | "There are 2 files."                   |
        | status     | 0                                      |
        | backend    | "claude"                               |
        | tool_calls | 1                                      |
        | session_id | "b7c1e2a0-5f3d-4c8e-9a61-0d2f4e6a8b10" |

    @req:AG-D1.2
    Scenario: A Codex transcript with a warning, reasoning and a command, as the CLI prints it
      Given an agent for the "codex" backend
      And the harness prints:
        """
        {"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `gpt-test` not found. Defaulting to fallback metadata."}}
        {"type":"thread.started","thread_id":"019c7199-8e3a-7c10-b4f2-5a6d7e8f9a0b"}
        {"type":"turn.started"}
        {"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":"**Counting files**"}}
        {"type":"item.started","item":{"id":"item_2","type":"command_execution","command":"bash -lc 'ls | wc -l'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
        {"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"bash -lc 'ls | wc -l'","aggregated_output":"2\n","exit_code":0,"status":"completed"}}
        {"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"There are 2 files."}}
        {"type":"turn.completed","usage":{"input_tokens":3120,"cached_input_tokens":2048,"output_tokens":41,"reasoning_output_tokens":12}}
        """
      When the agent answers "How many files are here?"
      Then the response has:
        | key        | value                                  |
        | message    | "There are 2 files."                   |
        | status     | 0                                      |
        | backend    | "codex"                                |
        | tool_calls | 1                                      |
        | session_id | "019c7199-8e3a-7c10-b4f2-5a6d7e8f9a0b" |

    # The two transcripts below were recorded from the pinned real CLIs, each running two
    # tools against a scripted model (fixtures/transcripts/, docs/real-clis.md): every line as
    # the CLI printed it, unknown system subtypes and warning items included.

    @req:AG-D1.1
    Scenario: A transcript recorded from the real Claude Code is answered as the real run was
      Given an agent for the "claude" backend
      And the harness replays the recorded transcript "claude-tools"
      When the agent answers "Write hello.txt, then list the directory."
      Then the response has:
        | key        | value              |
        | message    | "Wrote hello.txt." |
        | status     | 0                  |
        | tool_calls | 2                  |
      And the response's session_id is the one the recorded CLI reported

    @req:AG-D1.2
    Scenario: A transcript recorded from the real Codex is answered as the real run was
      Given an agent for the "codex" backend
      And the harness replays the recorded transcript "codex-tools"
      When the agent answers "Write hello.txt, then list the directory."
      Then the response has:
        | key        | value              |
        | message    | "Wrote hello.txt." |
        | status     | 0                  |
        | tool_calls | 2                  |
      And the response's session_id is the one the recorded CLI reported

    # The two below check seed 000's MUSTs on turns as the real CLIs print them. A fake turn
    # prints the answer alone; the real Codex prints an error item (a warning about the
    # model's metadata) before its turn and a reasoning item with text of its own, and the
    # real Claude Code a thinking block and an unknown system line, the real Gemini CLI its
    # echo of the prompt. Found by mutation testing (docs/mutation.md): a Codex parser that
    # took the text of any completed item as the answer, or counted every item that is no
    # agent message as a tool, failed only these transcripts' SHOULDs. A CLI with no
    # recorded text answer is not applicable.
    @req:RP-1.2
    Scenario: A text answer as the real Codex prints it is the answer alone
      Given an agent for the "codex" backend
      And the harness replays the CLI's recorded transcript of a text answer
      When the agent answers "What is 2 + 2?"
      Then the response has:
        | key     | value              |
        | message | "The answer is 4." |
        | status  | 0                  |
        | backend | "codex"            |

    @req:RP-3.2
    Scenario: A text answer as the real CLI prints it reports zero tool calls
      Given an agent for the "claude" backend
      And the harness replays the CLI's recorded transcript of a text answer
      When the agent answers "What is 2 + 2?"
      Then the response has:
        | key        | value |
        | status     | 0     |
        | tool_calls | 0     |

  Rule: D-3 tool_calls counts each tool invocation once, of every kind
    The seed counts "tool calls the harness made". Codex reports commands, file changes, MCP
    calls and web searches as items, some as started and completed, some as completed only;
    Claude reports tool_use blocks, sometimes several in one line, and their results. Counting
    results, or lines, would double the count.

    @req:AG-D3.1
    Scenario: Codex commands, file changes, MCP calls and web searches
      Given an agent for the "codex" backend
      And the harness prints:
        """
        {"type":"thread.started","thread_id":"019c7199-0000-7000-8000-00000000d301"}
        {"type":"turn.started"}
        {"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
        {"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a.py\n","exit_code":0,"status":"completed"}}
        {"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"a.py","kind":"update"}],"status":"completed"}}
        {"type":"item.started","item":{"id":"item_3","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"api"},"result":null,"error":null,"status":"in_progress"}}
        {"type":"item.completed","item":{"id":"item_3","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"api"},"result":{"content":[]},"error":null,"status":"completed"}}
        {"type":"item.completed","item":{"id":"item_4","type":"web_search","query":"python pidfd"}}
        {"type":"item.completed","item":{"id":"item_5","type":"todo_list","items":[{"text":"edit a.py","completed":true}]}}
        {"type":"item.completed","item":{"id":"item_6","type":"agent_message","text":"Done."}}
        {"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}}
        """
      When the agent answers "Fix a.py"
      Then the response has:
        | key        | value   |
        | message    | "Done." |
        | tool_calls | 4       |

    @req:AG-D3.2
    Scenario: Claude tool_use blocks, two in one line, and their results
      Given an agent for the "claude" backend
      And the harness prints:
        """
        {"type":"system","subtype":"init","session_id":"00000000-0000-4000-8000-00000000d302","cwd":"/w","tools":["Read","Grep"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"none","claude_code_version":"2.1.330","uuid":"u1"}
        {"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Reading both."},{"type":"tool_use","id":"toolu_A","name":"Read","input":{"file_path":"a.py"}},{"type":"tool_use","id":"toolu_B","name":"Read","input":{"file_path":"b.py"}}]},"parent_tool_use_id":null,"session_id":"00000000-0000-4000-8000-00000000d302","uuid":"u2"}
        {"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":[{"type":"text","text":"print(1)"}],"is_error":false},{"type":"tool_result","tool_use_id":"toolu_B","content":"print(2)","is_error":false}]},"parent_tool_use_id":null,"session_id":"00000000-0000-4000-8000-00000000d302","uuid":"u3"}
        {"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_C","name":"Grep","input":{"pattern":"print"}}]},"parent_tool_use_id":null,"session_id":"00000000-0000-4000-8000-00000000d302","uuid":"u4"}
        {"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_C","content":"a.py:1\nb.py:1","is_error":false}]},"parent_tool_use_id":null,"session_id":"00000000-0000-4000-8000-00000000d302","uuid":"u5"}
        {"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Both print."}]},"parent_tool_use_id":null,"session_id":"00000000-0000-4000-8000-00000000d302","uuid":"u6"}
        {"type":"result","subtype":"success","is_error":false,"result":"Both print.","session_id":"00000000-0000-4000-8000-00000000d302","num_turns":3,"duration_ms":900,"duration_api_ms":700,"total_cost_usd":0.001,"uuid":"u7"}
        """
      When the agent answers "What do a.py and b.py do?"
      Then the response has:
        | key        | value         |
        | message    | "Both print." |
        | tool_calls | 3             |

  Rule: D-4 A failure reported in the stream is a failure, whatever the exit code
    Claude Code can report an API failure as a result with `is_error: true` (even with subtype
    "success") and Codex reports a failed turn with `turn.failed`; the exit code alone misses
    these. The failure is the turn's own, never "the turn completed, then the CLI exited
    non-zero" (which AG-H9 reports, with the turn's answer). A top-level Codex `error` can be a
    transient notice ("Reconnecting..."), so it does not fail a turn that completes. Status codes are documented (docs/status-codes.md): 1 the
    harness reported an error or exited non-zero, 2 it died by a signal the agent did not send,
    3 timeout, 4 the CLI could not be started, 5 busy. The message of a death by signal names
    the signal as a shell does (SIGKILL, SIGSEGV): the user tells the kernel's out-of-memory
    killer from a crash by it, and "signal 9" leaves them to look it up.

    @req:AG-D4.1
    Scenario: Claude reports an API failure with is_error and exits 0
      Given an agent for the "claude" backend
      And the harness prints:
        """
        {"type":"system","subtype":"init","session_id":"00000000-0000-4000-8000-00000000d401","cwd":"/w","tools":[],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.330","uuid":"u1"}
        {"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"Invalid API key · Please run /login"}]},"parent_tool_use_id":null,"session_id":"00000000-0000-4000-8000-00000000d401","uuid":"u2","error":"authentication_failed"}
        {"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login","session_id":"00000000-0000-4000-8000-00000000d401","num_turns":1,"duration_ms":120,"duration_api_ms":0,"total_cost_usd":0,"uuid":"u3"}
        """
      When the agent answers "Hello"
      Then the response status is 1
      And the response message contains "Invalid API key"

    @req:AG-D4.2
    Scenario: Claude stops at the turn limit
      Given an agent for the "claude" backend
      And the harness prints:
        """
        {"type":"system","subtype":"init","session_id":"00000000-0000-4000-8000-00000000d402","cwd":"/w","tools":[],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.330","uuid":"u1"}
        {"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (1)"],"session_id":"00000000-0000-4000-8000-00000000d402","num_turns":1,"duration_ms":120,"duration_api_ms":100,"total_cost_usd":0,"uuid":"u2"}
        """
      And the harness then exits with code 1
      When the agent answers "Refactor everything"
      Then the response status is 1
      And the response message contains "Reached maximum number of turns (1)"
      And the response does not say the turn had completed
      And the response has:
        | key        | value                                  |
        | session_id | "00000000-0000-4000-8000-00000000d402" |

    @req:AG-D4.3
    Scenario: Codex reports a failed turn
      Given an agent for the "codex" backend
      And the harness prints:
        """
        {"type":"thread.started","thread_id":"019c7199-0000-7000-8000-00000000d403"}
        {"type":"turn.started"}
        {"type":"turn.failed","error":{"message":"stream disconnected before completion"}}
        """
      And the harness then exits with code 1
      When the agent answers "Hello"
      Then the response status is 1
      And the response message contains "stream disconnected before completion"
      And the response does not say the turn had completed

    @req:AG-D4.4
    Scenario: A transient Codex reconnect notice before a turn that completes
      Given an agent for the "codex" backend
      And the harness prints:
        """
        {"type":"thread.started","thread_id":"019c7199-0000-7000-8000-00000000d404"}
        {"type":"turn.started"}
        {"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion)"}
        {"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"Back online."}}
        {"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":3}}
        """
      When the agent answers "Hello"
      Then the response has:
        | key     | value          |
        | status  | 0              |
        | message | "Back online." |

    @req:AG-D4.5
    Scenario Outline: Each way a request fails has its own status
      Given an agent for the "claude" backend
      And the harness <behaviour>
      When the agent answers "Hello"
      Then the response status is <status>
      And the agent is READY

      Examples:
        | behaviour                          | status |
        | exits with code 1                  | 1      |
        | is killed by SIGKILL               | 2      |
        | never finishes                     | 3      |
        | command is missing from PATH       | 4      |

    @req:AG-D4.5
    Scenario Outline: The message of a CLI killed by a signal names the signal (<signal>)
      SIGHUP is signal 1, the one a closed terminal sends: an exit status of -1 is a signal too.
      SIGTERM is the one an agent sends at a deadline: a CLI ended by one the agent did not
      send (a user's `kill`) was killed by a signal all the same.
      Given an agent for the "claude" backend
      And the harness is killed by <signal>
      When the agent answers "Hello"
      Then the response status is 2
      And the response message contains "<signal>"

      Examples:
        | signal  |
        | SIGKILL |
        | SIGHUP  |
        | SIGTERM |

    @req:AG-D4.6
    Scenario Outline: A failed request's message says what failed, not what stderr said last (<behaviour>)
      A CLI's last words on stderr are often a retry notice or a log line, not the cause. The
      seeds leave open which line of a failure leads the message; we choose the one that says
      what failed, so a caller that shows only the message shows the cause. The tail of
      stderr is kept, in the error. (A death by a signal is AG-D4.5's: its message names the
      signal.)
      Given an agent for the "claude" backend
      And the harness writes "lost the connection" and "giving up" to stderr, then <behaviour>
      When the agent answers "Hello"
      Then the response status is <status>
      And the response message contains "<says>"
      And the response message does not contain "lost the connection"
      And the response message does not contain "giving up"
      And the response error contains "giving up"

      Examples:
        | behaviour            | status | says      |
        | exits with code 37   | 1      | code 37   |
        | never finishes       | 3      | timed out |

  Rule: D-5 The prompt is data, never an option, and stdin is closed after it
    A prompt such as "--help" passed as an argument would be read as a flag. The prompt goes
    on stdin (or after "--"), and stdin is closed once it is written: Codex reads stdin until
    it closes ("Reading additional input from stdin...") and would otherwise wait forever.
    The timeout of AG-D5.2 is a safety net, not its subject: 20 real seconds, never scaled, so
    an agent that leaves stdin open fails by its timeout, and a busy machine fails nothing.

    @req:AG-D5.1
    Scenario Outline: A prompt that looks like a flag reaches the harness as the prompt
      Given an agent for the "<backend>" backend
      When the agent answers "<prompt>"
      Then the harness received "<prompt>" as its prompt, not as an option
      And the response status is 0

      Examples:
        | backend | prompt                         |
        | claude  | --help                         |
        | claude  | --dangerously-skip-permissions |
        | codex   | -p                             |

    @req:AG-D5.2
    Scenario: A harness that reads stdin to its end before answering
      Given an agent for the "codex" backend with a safety timeout of 20 seconds
      And the harness reads stdin until it is closed, then answers "stdin was closed"
      When the agent answers "Hello"
      Then the response has:
        | key     | value              |
        | status  | 0                  |
        | message | "stdin was closed" |

    @req:AG-D5.2
    Scenario: A harness that reads to its end a prompt larger than a pipe holds gets it whole
      A pipe holds 64 KiB: a longer prompt is written as the CLI reads it, in many writes,
      and stdin is closed only after the last.
      Given an agent for the "codex" backend with a safety timeout of 20 seconds
      And the harness reads stdin until it is closed, then answers "stdin was closed"
      When the agent answers a prompt of 1000000 bytes
      Then the response has:
        | key     | value              |
        | status  | 0                  |
        | message | "stdin was closed" |
      And the harness read the whole prompt on its stdin

  Rule: D-6 The harness runs supervised: its own process group, SIGTERM then SIGKILL, always reaped
    Wrappers leak grandchildren when they signal only the direct child, hang when a
    grandchild keeps stdout open, deadlock when stderr fills its pipe while they wait on
    stdout, and crash on long lines (asyncio's 64 KiB limit) or invalid UTF-8. The agent
    starts the harness in its own process group, drains stdout and stderr together, reads
    lines up to 16 MiB, and leaves nothing running after a request. When the deadline is the
    subject, the answer must come within the timeout plus the grace period, plus 2 s (real
    time) for starting and reaping the CLI: a wrapper that sends SIGTERM but never SIGKILL
    hangs on a CLI that ignores SIGTERM, and one that waits seconds more answers late.
    Under the time scale a deadline is never shorter than one real second: a CLI started on
    a busy machine can take longer than a scaled 0.2 s to start, and a CLI stopped before it
    ran leaves nothing to judge. For the same reason the grace period is never shorter than
    half a real second: a CLI that ignores SIGTERM is judged on having received it, and on a
    busy machine its handler can take longer than a scaled 0.1 s to run before the SIGKILL.

    @req:AG-D6.1
    Scenario: A harness that times out with a grandchild
      Given an agent for the "claude" backend with a timeout of 10 seconds
      And the harness starts a grandchild that holds stdout open, then never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And the harness ran in its own process group
      And neither the harness nor its grandchild is left running

    @req:AG-D6.1
    Scenario Outline: A harness that exits while its grandchild holds stdout open
      Given an agent for the "<backend>" backend with a timeout of 100 seconds
      And the harness answers "finished", starts a grandchild that holds stdout open, and exits
      When the agent answers "Hello"
      Then the response has:
        | key     | value      |
        | status  | 0          |
        | message | "finished" |
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running

      Examples:
        | backend |
        | claude  |
        | codex   |

    # A tool may start a process in a session of its own: Claude Code's Bash tool runs each
    # command in its own process group, so `nohup cmd &` there outlives both the CLI and a
    # signal to the CLI's group (found with the real CLI, features/real-cli RC-6). It is still
    # a descendant of the request, and must not survive it.

    @req:AG-D6.1
    Scenario: A harness that times out after starting a process in a session of its own
      Given an agent for the "claude" backend with a timeout of 10 seconds
      And the harness starts a process in a session of its own, then never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And neither the harness nor its grandchild is left running

    @req:AG-D6.1
    Scenario: A harness that exits after starting a process in a session of its own
      Given an agent for the "codex" backend with a timeout of 100 seconds
      And the harness answers "finished", starts a process in a session of its own, and exits
      When the agent answers "Hello"
      Then the response has:
        | key     | value      |
        | status  | 0          |
        | message | "finished" |
      And neither the harness nor its grandchild is left running

    # An agent serves request after request for days: a file descriptor each request leaves
    # open (a pipe, a handle on its CLI's process) ends, some thousands of requests later, in
    # "Too many open files" for every request after it, and a child never waited for stays
    # a zombie in the process table. The suite looks at the process the agent runs in (on
    # Linux, where /proc says) after one request that lets the agent open what it keeps for
    # good, and again after five more: no more descriptors, no new zombie child (a moment is
    # allowed for what the agent closes or reaps just after it answers). Requests
    # whose CLI cannot start are looked at too, since a failed start is where clean-up is
    # forgotten: a working directory that cannot be entered fails before any program runs,
    # an interpreter that is gone fails in the exec. For an agent in the suite's own process
    # what is counted is the suite's: nothing else in it opens descriptors or starts
    # processes while the requests run.

    @req:AG-H25
    Scenario: An agent holds no more descriptors or children after its requests than before them
      Given an agent for the "claude" backend
      When the agent is asked "Hello" 6 times
      Then after the last request the agent holds no more open file descriptors and no more unreaped children than after the first

    @req:AG-H25
    Scenario: An agent holds no more descriptors or children after requests whose working directory is gone
      Given an agent for the "claude" backend whose working directory is removed once it is created
      When the agent is asked "Hello" 6 times
      Then after the last request the agent holds no more open file descriptors and no more unreaped children than after the first

    @req:AG-H25
    Scenario: An agent holds no more descriptors or children after requests whose CLI's interpreter is gone
      Given an agent for the "claude" backend
      And the harness command is on PATH but its interpreter is gone
      When the agent is asked "Hello" 6 times
      Then after the last request the agent holds no more open file descriptors and no more unreaped children than after the first

    # An agent can itself die in the middle of a request: an out-of-memory killer, a
    # container's stop or a crash in native code ends it with no chance to clean up. Its CLI
    # must not run on without it, spending tokens on an answer nobody reads, and neither may
    # what the CLI started: only what the agent arranged before it died can end them (on
    # Linux, a parent-death signal; the reference's reaper, which gets one, ends the whole
    # tree). The suite kills the process the agent runs in and nothing else: the adapter, or
    # a served agent; an agent in the suite's own process is given one to die in (the suite
    # forks, and the child asks the agent). "Soon" is 15 seconds, room for a grace period on
    # a loaded machine: an agent that ends them at all does so at once. As at a deadline
    # (D-6), the CLI gets SIGTERM first, its chance to stop cleanly.

    @req:AG-D6.6
    Scenario: A CLI and what it started do not outlive an agent killed in the middle of a request
      Given an agent for the "claude" backend with a safety timeout of 30 seconds
      And the harness starts a process in a session of its own, then never finishes
      When the agent's process is killed while the harness runs
      Then the harness and its grandchild end soon after
      And the harness received SIGTERM

    # A CLI that ignores the SIGTERM its agent's death brings, and a process it started in a
    # session of its own that ignores it too, are ended all the same: the reference's reaper,
    # left without its agent, waits 5 seconds for the tree to stop on its own, then kills what
    # is left. Nothing stops within those 5 seconds here, so what ends the tree is that
    # SIGKILL, not the end of a process the reaper was waiting on. The agent's deadline (30
    # real seconds) is far off in both scenarios, and dies with the agent: what ends the CLI
    # is the agent's death.

    @req:AG-D6.6
    Scenario: A CLI and a process it started that ignore SIGTERM do not outlive an agent killed in the middle of a request either
      Given an agent for the "claude" backend with a safety timeout of 30 seconds
      And the harness ignores SIGTERM, starts a process in a session of its own that ignores it too, then never finishes
      When the agent's process is killed while the harness runs
      Then the harness and its grandchild end soon after

    # Such a process is stopped as the CLI is: SIGTERM first, a chance to stop cleanly (a
    # server a tool started writes its files and frees its port), SIGKILL after the grace.
    # The timeout is long enough for the harness to have started that process, on a busy
    # machine too: one started after the deadline's SIGTERM is not what this checks. Nor is
    # the grace period's length: it is real seconds, never scaled, so the process surely runs
    # its SIGTERM handler before any SIGKILL (the SIGTERM reaches it through a scan of the
    # request's processes; a scaled 0.1 s was once too short for that on a loaded machine). A
    # process that stops on SIGTERM ends the request at once all the same.

    @req:AG-H24
    Scenario: A process the CLI started in a session of its own is sent SIGTERM at the deadline
      Given an agent for the "claude" backend with a timeout of 50 seconds
      And a safety grace period of 3 seconds
      And the harness starts a process in a session of its own that notes a SIGTERM, then never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And the process in a session of its own was sent SIGTERM
      And neither the harness nor its grandchild is left running

    # So is one further down: a tool's launcher (in a session of its own) started a server
    # in a session of its own. The server gets its SIGTERM at the deadline too, not only a
    # SIGKILL once its launcher is gone: every descendant is found, however deep. The longer
    # timeout leaves room for three programs to start before the deadline.

    @req:AG-H24
    Scenario: A process two levels below the CLI, in a session of its own, is sent SIGTERM at the deadline
      Given an agent for the "claude" backend with a timeout of 150 seconds
      And a safety grace period of 3 seconds
      And the harness starts a process in a session of its own, which starts one in a session of its own that notes a SIGTERM, then never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And the process in a session of its own was sent SIGTERM
      And neither the harness nor its grandchild is left running

    # A process can hide better still: a session of its own, an environment emptied of
    # everything its parent gave it, and a parent that exits at once (a daemon's double
    # fork). Neither a signal to the group nor a mark in the environment finds it; the
    # kernel still knows whose descendant it is. It must not survive the request either.

    @req:AG-D6.1
    Scenario: A harness that times out after starting a process that hides from it
      Given an agent for the "claude" backend with a timeout of 10 seconds
      And the harness starts a process that hides from it, then never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And neither the harness nor its grandchild is left running

    @req:AG-D6.1
    Scenario: A harness that exits after starting a process that hides from it
      Given an agent for the "codex" backend with a timeout of 100 seconds
      And the harness answers "finished", starts a process that hides from it, and exits
      When the agent answers "Hello"
      Then the response has:
        | key     | value      |
        | status  | 0          |
        | message | "finished" |
      And neither the harness nor its grandchild is left running

    # A process's name is the one field of /proc/PID/stat it writes itself, and it may hold
    # ") " and spaces: a reader that splits the line on them, or cuts it at the first or
    # second ")", reads this one's parent as pid 1, and takes it for no descendant of the CLI.
    # The kernel's own record of the process still says whose it is.

    @req:AG-D6.1
    Scenario: A process that hides behind a name that reads as another parent
      Given an agent for the "codex" backend with a timeout of 100 seconds
      And the harness answers "finished", starts a process that hides from it under the name "x) S 1 (y", and exits
      When the agent answers "Hello"
      Then the response has:
        | key     | value      |
        | status  | 0          |
        | message | "finished" |
      And neither the harness nor its grandchild is left running

    # One SIGTERM, not one from each part of the agent that relays it: many programs take a
    # second SIGTERM or SIGINT as a demand to stop at once, skipping the cleanup the grace
    # period is for. A second one sent while the first is still pending reaches the CLI as one
    # with it (the kernel keeps one pending SIGTERM): the check counts the SIGTERMs the CLI
    # receives, which are those it can act on. The grace period is 3 real seconds, longer
    # than the 2 s of slack: a SIGKILL that comes a grace period late (when the agent gives up
    # waiting for the CLI's end) answers outside the bound.
    @req:AG-D6.2
    Scenario: A harness that ignores SIGTERM
      Given an agent for the "codex" backend with a timeout of 10 seconds
      And a grace period of 3 real seconds
      And the harness ignores SIGTERM and never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And the harness received SIGTERM once
      And the answer came within the timeout plus the grace period
      And neither the harness nor its grandchild is left running

    # The CLI's workers share its process group (Node's child processes, a shell's jobs), and
    # the SIGTERM sent to the group reaches each of them once. An agent that also signals every
    # descendant it finds sends them a second one a few milliseconds later, which a worker
    # that has already handled the first one catches. Whether a single process handles the
    # first in time depends on scheduling; with eight, at least one does. The timeout is longer
    # than the other scenarios': all eight have started before the deadline.
    @req:AG-D6.2
    Scenario: Each process of the CLI's group is sent SIGTERM once
      Given an agent for the "codex" backend with a timeout of 100 seconds
      And a grace period of 3 real seconds
      And the harness ignores SIGTERM, starts 8 processes in its own process group that note each SIGTERM and go on, then never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And the harness received SIGTERM once
      And each process of its group received SIGTERM once
      And neither the harness nor its grandchild is left running

    @req:AG-D6.3
    Scenario: A megabyte of stderr before any stdout
      Given an agent for the "claude" backend
      And the harness writes 1200000 bytes to stderr, then answers "after the noise"
      When the agent answers "Hello"
      Then the response has:
        | key     | value             |
        | status  | 0                 |
        | message | "after the noise" |

    @req:AG-D6.4
    Scenario Outline: A long stdout line is read whole
      Given an agent for the "<backend>" backend
      And the harness answers with a text of <size> bytes in one line
      When the agent answers "Hello"
      Then the response status is 0
      And the response message is <size> bytes long

      Examples:
        | backend | size    |
        | claude  | 102400  |
        | claude  | 2097152 |
        | codex   | 2097152 |

    @req:AG-D6.5
    Scenario: Invalid UTF-8 on stdout
      Given an agent for the "claude" backend
      And the harness prints bytes that are not UTF-8, then answers "still here"
      When the agent answers "Hello"
      Then the response has:
        | key     | value        |
        | status  | 0            |
        | message | "still here" |

  Rule: D-38 A CLI that has ended its turn and not its process is stopped a grace period later, and the turn's answer stands
    A CLI can print the end of its turn and then never exit: an MCP server or a background
    command it started holds it open, or a bug keeps its event loop alive. Claude Code has done
    so again and again (see AG-D6.7's hazards). A wrapper that waits for the exit waits for its
    deadline, and then reports a timeout for a request whose answer it had long before. Once
    the turn has ended (the stream's end-of-turn line; for an ACP agent, the answer to its
    prompt, after which the wrapper closes its stdin), the CLI has a grace period to end, two
    seconds at least: the suite sets grace periods of a tenth of a second where they are not
    the subject, and a CLI that has just printed its last line can take longer than that to
    exit on a busy machine. Then it is stopped as at a deadline (SIGTERM, SIGKILL a grace
    period later) and the request is answered with the turn's answer. The answer must come
    within two grace periods of the turn's end (plus 2 s to start and reap the CLI); the
    timeout here is far longer. No grace runs before the turn has ended: a CLI that pauses
    mid-turn for longer than the grace period is still working, and is waited for.

    @req:AG-D6.7
    Scenario Outline: A <backend> CLI that has answered and keeps running is stopped, and its answer stands
      Given an agent for the "<backend>" backend with a safety timeout of 20 seconds
      And a safety grace period of 2 seconds
      And the harness answers "All done.", then keeps running
      When the agent answers "Finish up"
      Then the response status is 0
      And the response message is "All done.".
      And the answer came within two grace periods
      And neither the harness nor its grandchild is left running

      Examples:
        | backend    |
        | claude     |
        | codex      |
        | gemini     |
        | gemini-acp |
        | claude-acp |
        | codex-acp  |

    @req:AG-D6.7
    Scenario Outline: A <backend> CLI that exits 1.2 s after its turn's end is not stopped: the grace after a turn is two seconds at least
      Given an agent for the "<backend>" backend with a safety timeout of 20 seconds
      And the harness answers "Almost done.", then exits 1.2 real seconds later
      When the agent answers "Wrap up"
      Then the response status is 0
      And the response message is "Almost done.".
      And the harness received no signal

      Examples:
        | backend |
        | claude  |
        | codex   |
        | gemini  |

    @req:AG-D6.7
    Scenario Outline: A <backend> CLI that pauses mid-turn for longer than the grace period is not stopped
      Given an agent for the "<backend>" backend with a safety timeout of 20 seconds
      And the harness takes 3 real seconds to answer "Worth the wait."
      When the agent answers "Take your time"
      Then the response status is 0
      And the response message is "Worth the wait.".

      Examples:
        | backend |
        | claude  |
        | codex   |
        | gemini  |

  Rule: D-7 A request that arrives while BUSY is answered at once, never lost
    The seed has one request at a time but a caller can send two. Queueing would hide a
    stuck agent behind a growing queue, so the agent answers the second request at once with
    status 5 ("busy") and the caller decides; the running request is not disturbed.
    The harness's pause is not the subject: it only has to outlast the time between the two
    requests' arrival, which on a busy machine does not shrink with the time scale, so it is
    3 real seconds, never scaled.
    Every state the agent publishes carries GENESIS's numeric value and a reason a person
    monitoring the agent reads; the one that ends a request says how it ended, so a request
    that timed out is not published as one that completed.

    @req:AG-D7.1
    Scenario: Two requests at once
      Given an agent for the "claude" backend
      And the harness takes 3 real seconds to answer "slow but sure"
      When two requests arrive at the same time
      Then one response has status 5 and names the agent as busy
      And the other response has status 0 and message "slow but sure"
      And the agent is READY

    @req:AG-D7.2
    Scenario: Node events carry GENESIS state values and reasons
      Given an agent for the "claude" backend
      When the agent answers "Hello"
      Then every node event published since the agent was created has a reason
      And every node event names its state with its GENESIS value:
        | state       | value |
        | JOINING     | 0     |
        | DISCOVERING | 1     |
        | READY       | 2     |
        | BUSY        | 3     |
        | DEGRADED    | 4     |
        | OFFLINE     | 5     |

    @req:AG-D7.2
    Scenario: The state after a request that timed out gives the timeout as its reason
      Given an agent for the "claude" backend with a timeout of 2 seconds
      And the harness prints nothing and never finishes
      When the agent answers "Hello"
      Then the response status is 3
      And the node event that ended the request gives a reason that names the timeout

  Rule: D-19 The model the caller chose reaches the CLI
    An agent may be created with a model. The CLI must then run with that model, named by the
    CLI's own option (claude's `--model`, codex's and gemini's `-m`); an agent created without
    one leaves the CLI's default alone. A wrapper that drops the setting answers with whatever
    model the CLI defaults to, and nothing in the answer shows it. Each scenario runs once for
    every backend its requirement lists.

    @req:AG-M1
    Scenario: An agent created with a model runs the CLI with it
      Given an agent for the "claude" backend with the model "scripted-model-2"
      And the harness reads stdin until it is closed, then answers "Hello"
      When the agent answers "Hi"
      Then the response status is 0
      And the harness was started with the model "scripted-model-2"

    @req:AG-M1
    Scenario: An agent created without a model leaves the CLI's default
      Given an agent for the "claude" backend
      And the harness reads stdin until it is closed, then answers "Hello"
      When the agent answers "Hi"
      Then the response status is 0
      And the harness was started with no model of the agent's choosing

  Rule: D-23 A monitor that fails changes no answer
    An agent tells its monitors (a status topic, a log, a caller's callback) of every state it
    goes through and every event of the stream. One of them may fail: a full disk, a DDS writer
    that errors, a callback with a bug. GENESIS swallows a failed publication and carries on
    (docs/genesis.md, G11.8); the request's answer must not depend on who was listening, and
    the other monitors must still hear everything. Only an agent in the suite's own process
    can be handed a monitor that fails; through an adapter or over DDS the monitors are the
    implementation's own, so there this is not applicable.

    @req:AG-L1
    Scenario: A monitor that fails on every state and event changes neither the answer nor what the others hear
      Given an agent for the "claude" backend
      And a monitor of the agent fails on every state and event it is handed
      When the agent answers "Hello"
      Then the response status is 0
      And the response message is "2 + 2 = 4".
      And the agent's other monitors heard it go BUSY and back to READY
      And the agent is READY

  Rule: D-24 A failure inside the agent is published, answered, and recovered from
    Not only the CLI can fail: the agent's own code can (a bug in its parser, a full disk, a
    state it did not expect). GENESIS then publishes DEGRADED and, once it has recovered, READY,
    each with a reason (docs/genesis.md, G11.3). The request is still answered: status 1, with
    a message that says the agent failed, not the CLI; the CLI it started is stopped. Only an
    agent in the suite's own process can be made to fail inside (its parser is swapped for one
    that raises); through an adapter or over DDS this is not applicable.

    @req:AG-L2
    Scenario: An agent whose own parser fails mid-request publishes DEGRADED, answers, and is READY again
      Given an agent for the "claude" backend
      And the agent's own reading of the stream fails on every line
      When the agent answers "Hello"
      Then the response status is 1
      And the response message contains "internal error"
      And the agent's monitors heard it go BUSY, DEGRADED and back to READY, each with a reason
      And no harness started for it is left running
      And the agent is READY


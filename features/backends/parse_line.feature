Feature: parse_line turns one raw CLI line into normalized events
  Seed 000 says each stdout line "is passed to ClaudeBackend.parse_line"; decision D-2 fixes
  what comes out: events of kinds init, text, tool_start, tool_result, done and error, with
  session_id, text, tool_name, tool_input, tool_output, tool_id and the parsed line as raw.
  One line can yield several events (one per content block) or none. The lines below are in
  the real CLIs' formats (decision D-1); they show the fields that matter, and a line of a
  shape the pinned CLI was recorded printing is handed to parse_line with its other fields
  as the CLI prints them (so it is valid against schemas/cli/). Lines that are not JSON
  objects, or are malformed on purpose, are given exactly as written. The expected events below
  leave `raw` out: that every event carries its line is BK-EV.1's to judge, in the last rule.

  Rule: Claude Code stream-json lines
    Claude prints one JSON object per line: system (subtype init carries the session id),
    assistant messages with content blocks, user messages with tool results, and a result.

    @req:BK-CL.1
    Scenario: The init line gives the session id
      When the claude backend parses:
        """
        {"type":"system","subtype":"init","cwd":"/w","session_id":"sess-new-001","tools":["Bash"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"none","claude_code_version":"2.1.330","uuid":"u1"}
        """
      Then the events are:
        """
        [{"kind": "init", "session_id": "sess-new-001"}]
        """

    @req:BK-CL.2
    Scenario: An assistant line with a text block, a thinking block and two tool_use blocks
      When the claude backend parses:
        """
        {"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_A","name":"Read","input":{"file_path":"a.py"}},{"type":"tool_use","id":"toolu_B","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u2"}
        """
      Then the events are:
        """
        [{"kind": "text", "text": "Reading."},
         {"kind": "tool_start", "tool_name": "Read", "tool_input": {"file_path": "a.py"}, "tool_id": "toolu_A"},
         {"kind": "tool_start", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_id": "toolu_B"}]
        """

    @req:BK-CL.2
    Scenario: A block is read by its type: only a text block with text is text
      A thinking block carries no answer, even with a `text` field beside its thinking; a
      text block whose text is no string is malformed and gives no event (a wrapper that
      joins the answer's text must never meet a null), and an entry that is no block at all is
      passed over, the blocks after it read. Found by mutation testing (docs/mutation.md): the
      reference read either as text, or stopped at the entry that is no block, and every
      scenario passed.
      When the claude backend parses:
        """
        {"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"hmm","text":"not the answer","signature":"s"},{"type":"text","text":null},"no block",{"type":"text","text":"The answer."}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u10"}
        """
      Then the events are:
        """
        [{"kind": "text", "text": "The answer."}]
        """

    @req:BK-CL.3
    Scenario: A user line with tool results, as text and as text blocks
      When the claude backend parses:
        """
        {"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":[{"type":"text","text":"print(1)"}],"is_error":false},{"type":"tool_result","tool_use_id":"toolu_B","content":"a.py","is_error":false}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u3"}
        """
      Then the events are:
        """
        [{"kind": "tool_result", "tool_output": "print(1)", "tool_id": "toolu_A"},
         {"kind": "tool_result", "tool_output": "a.py", "tool_id": "toolu_B"}]
        """

    @req:BK-CL.3
    Scenario: A block that is no object is passed over, the tool results around it kept
      A content list is the CLI's to fill; a string in it is no block of any type. Found by
      mutation testing (docs/mutation.md).
      When the claude backend parses:
        """
        {"type":"user","message":{"role":"user","content":["a note",{"type":"tool_result","tool_use_id":"toolu_F","content":"done","is_error":false},null]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u12"}
        """
      Then the events are:
        """
        [{"kind": "tool_result", "tool_output": "done", "tool_id": "toolu_F"}]
        """

    @req:BK-CL.3
    Scenario: A tool result that is no text keeps its content as given
      A result whose blocks all carry text is joined into text; a result of an image, or of
      no block at all, keeps the content the CLI printed: an image is no empty text, and an
      empty list says "no output" as the CLI said it. Found by mutation testing
      (docs/mutation.md).
      When the claude backend parses:
        """
        {"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_D","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0K"}}],"is_error":false},{"type":"tool_result","tool_use_id":"toolu_E","content":[],"is_error":false}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u11"}
        """
      Then the events are:
        """
        [{"kind": "tool_result", "tool_output": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}], "tool_id": "toolu_D"},
         {"kind": "tool_result", "tool_output": [], "tool_id": "toolu_E"}]
        """

    @req:BK-CL.4
    Scenario: A success result is done with the final text, whatever the key order
      When the claude backend parses:
        """
        {"duration_api_ms":812,"duration_ms":1023,"is_error":false,"num_turns":1,"result":"4","session_id":"s1","total_cost_usd":0.001,"type":"result","subtype":"success","uuid":"u4"}
        """
      Then the events are:
        """
        [{"kind": "done", "session_id": "s1", "text": "4"}]
        """

    @req:BK-CL.5
    Scenario Outline: An error result is an error with its text
      When the claude backend parses:
        """
        <line>
        """
      Then the events are:
        """
        [{"kind": "error", "session_id": "s1", "text": "<text>"}]
        """

      Examples:
        | line                                                                                                                   | text                          |
        | {"type":"result","subtype":"success","is_error":true,"result":"Invalid API key","session_id":"s1"}                      | Invalid API key               |
        | {"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (2)"],"session_id":"s1"} | Reached maximum number of turns (2) |
        | {"type":"result","subtype":"error_during_execution","is_error":true,"errors":[],"session_id":"s1"}                      | claude reported error_during_execution |
        | {"type":"result","subtype":"error_during_execution","is_error":true,"errors":["the tool crashed"],"session_id":"s1"}    | the tool crashed |

    @req:BK-CL.6
    Scenario Outline: Claude lines that carry no event
      When the claude backend parses:
        """
        <line>
        """
      Then there are no events

      Examples:
        | line                                                                                      |
        | {"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500} |
        | {"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}                        |
        | {"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"4"}}} |
        | [SandboxDebug] seccomp filter applied                                                     |
        | not-json-line                                                                             |
        | ["an", "array"]                                                                           |
        | {"type":"assistant","message":{"content":"not a list"}}                                   |
        | {"truncated": "line                                                                       |
        | {"type":"result","subtype":"success","result":"4","session_id":"s1"} {"type":"x"}          |

    @req:BK-CL.7
    Scenario: An empty text block is still a text event, with empty text
      Events follow the message's blocks one for one (BK-CL.2), so a block whose text is
      empty gives a text event whose text is empty: it adds nothing to the answer, and a
      listener that follows the blocks misses none (GENESIS, event parsing, docs/genesis.md
      G04.3).
      When the claude backend parses:
        """
        {"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":""},{"type":"tool_use","id":"toolu_C","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u9"}
        """
      Then the events are:
        """
        [{"kind": "text", "text": ""},
         {"kind": "tool_start", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_id": "toolu_C"}]
        """

  Rule: Codex exec --json lines
    Codex prints thread, turn and item events. Tool items (command_execution, file_change,
    mcp_tool_call, web_search) start as tool_start and complete as tool_result under one
    item id; agent_message items are text; turn.completed is done (without text); turn.failed
    is an error. A top-level `error` is a notice that can be transient: it is not an event.

    @req:BK-CX.1
    Scenario: thread.started gives the session id
      When the codex backend parses:
        """
        {"type":"thread.started","thread_id":"019c7199-abcd"}
        """
      Then the events are:
        """
        [{"kind": "init", "session_id": "019c7199-abcd"}]
        """

    @req:BK-CX.2
    Scenario: A completed agent message is text
      When the codex backend parses:
        """
        {"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"GENESIS_CODEX_TEST_OK"}}
        """
      Then the events are:
        """
        [{"kind": "text", "text": "GENESIS_CODEX_TEST_OK"}]
        """

    @req:BK-CX.6
    Scenario: An agent message of several lines is one text event, its line breaks kept
      The message is one item however many lines its text has (GENESIS, event parsing,
      docs/genesis.md G05.3); a parser that keeps only the first line, or splits it into
      several events, changes the answer.
      When the codex backend parses:
        """
        {"type":"item.completed","item":{"id":"item_5","type":"agent_message","text":"First line.\n\n- a point\n- another\n"}}
        """
      Then the events are:
        """
        [{"kind": "text", "text": "First line.\n\n- a point\n- another\n"}]
        """

    @req:BK-CX.7
    Scenario Outline: Malformed Codex items give no event and raise nothing
      A line whose item is missing, is not an object, has no type or a text that is not a
      string is skipped like any malformed line (seed 001: malformed lines are skipped
      silently), never taken for a message and never an exception.
      When the codex backend parses:
        """
        <line>
        """
      Then there are no events

      Examples:
        | line                                                                         |
        | {"type":"item.completed"}                                                    |
        | {"type":"item.completed","item":"agent_message"}                             |
        | {"type":"item.completed","item":null}                                        |
        | {"type":"item.completed","item":{"id":"item_6","text":"no type"}}            |
        | {"type":"item.completed","item":{"id":"item_7","type":"agent_message","text":7}} |
        | {"type":"item.started","item":["command_execution"]}                         |

    @req:BK-CX.3
    Scenario: A command starts and completes under one item id
      When the codex backend parses:
        """
        {"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
        {"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a.py\n","exit_code":0,"status":"completed"}}
        """
      Then the events are:
        """
        [{"kind": "tool_start", "tool_name": "command_execution", "tool_input": "bash -lc ls", "tool_id": "item_1"},
         {"kind": "tool_result", "tool_name": "command_execution", "tool_output": "a.py\n", "tool_id": "item_1"}]
        """

    @req:BK-CX.4
    Scenario: turn.completed is done without text; turn.failed is an error
      When the codex backend parses:
        """
        {"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}}
        {"type":"turn.failed","error":{"message":"stream disconnected before completion"}}
        """
      Then the events are:
        """
        [{"kind": "done"},
         {"kind": "error", "text": "stream disconnected before completion"}]
        """

    @req:BK-CX.5
    Scenario Outline: Codex lines that carry no event
      When the codex backend parses:
        """
        <line>
        """
      Then there are no events

      Examples:
        | line                                                                                         |
        | {"type":"turn.started"}                                                                      |
        | {"type":"error","message":"Reconnecting... 2/5"}                                             |
        | {"type":"item.completed","item":{"id":"item_0","type":"error","message":"model metadata not found"}} |
        | {"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":"**Thinking**"}}    |
        | {"type":"item.updated","item":{"id":"item_2","type":"todo_list","items":[]}}                 |
        | not-json-line                                                                                |

  Rule: Gemini CLI stream-json lines
    Gemini prints an init line (the session id), messages (the user's prompt, then the
    assistant's text in chunks marked `delta`), tool_use and tool_result lines under one
    tool_id, and one result line whose status says how the turn ended. The assistant's chunks
    are text events, joined by the agent like any other text; the user's message is the prompt
    echoed, not an answer; result success is done without text, result error an error with its
    message. Recorded from @google/gemini-cli 0.61.0 (fixtures/transcripts/gemini-*.jsonl).

    @req:BK-GM.1
    Scenario: Gemini's init line gives the session id
      When the gemini backend parses:
        """
        {"type":"init","session_id":"84e7ad51-868c-4132-a464-836c568068dd","model":"gemini-2.5-flash"}
        """
      Then the events are:
        """
        [{"kind": "init", "session_id": "84e7ad51-868c-4132-a464-836c568068dd"}]
        """

    @req:BK-GM.2
    Scenario: The assistant's chunks are text, the user's echoed prompt is not
      When the gemini backend parses:
        """
        {"type":"message","role":"user","content":"What is 2 + 2?"}
        {"type":"message","role":"assistant","content":"The answer ","delta":true}
        {"type":"message","role":"assistant","content":"is 4.","delta":true}
        """
      Then the events are:
        """
        [{"kind": "text", "text": "The answer "}, {"kind": "text", "text": "is 4."}]
        """

    @req:BK-GM.3
    Scenario: A Gemini tool call starts and ends under one tool id, a failed one with its error (or its output, without one)
      When the gemini backend parses:
        """
        {"type":"tool_use","tool_name":"run_shell_command","tool_id":"run_shell_command_1","parameters":{"command":"ls"}}
        {"type":"tool_result","tool_id":"run_shell_command_1","status":"success","output":"a.py\n"}
        {"type":"tool_result","tool_id":"read_file_2","status":"error","output":"File not found.","error":{"type":"file_not_found","message":"File not found: missing.txt"}}
        {"type":"tool_result","tool_id":"write_file_3","status":"error","output":"Permission denied."}
        """
      Then the events are:
        """
        [{"kind": "tool_start", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}, "tool_id": "run_shell_command_1"},
         {"kind": "tool_result", "tool_output": "a.py\n", "tool_id": "run_shell_command_1"},
         {"kind": "tool_result", "tool_output": {"type": "file_not_found", "message": "File not found: missing.txt"}, "tool_id": "read_file_2"},
         {"kind": "tool_result", "tool_output": "Permission denied.", "tool_id": "write_file_3"}]
        """

    @req:BK-GM.4
    Scenario: result success is done without text; result error is an error
      When the gemini backend parses:
        """
        {"type":"result","status":"success","stats":{"total_tokens":20,"tool_calls":0}}
        {"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: invalid api key]"},"stats":{"total_tokens":0}}
        """
      Then the events are:
        """
        [{"kind": "done"},
         {"kind": "error", "text": "[API Error: invalid api key]"}]
        """

    @req:BK-GM.5
    Scenario Outline: Gemini lines that carry no event
      When the gemini backend parses:
        """
        <line>
        """
      Then there are no events

      Examples:
        | line                                                             |
        | {"type":"message","role":"user","content":"Hello"}               |
        | {"type":"thought","subject":"Planning"}                          |
        | {"type":"message","role":"assistant","content":null,"delta":true} |
        | not-json-line                                                    |


  Rule: ACP session/update notifications
    An agent of the Agent Client Protocol reports its turn in `session/update` notifications
    (JSON-RPC 2.0, one message a line), each carrying one update: a chunk of the agent's
    message, a thought, a plan, the user's message replayed, a tool call begun or an update of
    one (ACP: prompt turn, tool calls). A wrapper's conversation decides which of them belong
    to the turn (features/agent/acp.feature); read alone, a line's events are its update's.
    The messages below are written whole, as the protocol's schema (schemas/acp/) has them,
    except those malformed on purpose. Each scenario runs once for each ACP backend.

    @req:BK-ACP.1
    Scenario Outline: A <backend> message chunk of text is text; a chunk of other content is none
      A chunk may carry an image or a resource, which is no text of the answer; a chunk whose
      content is no object at all is malformed, and passed over without an error.
      When the <backend> backend parses:
        """
        {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"The answer "}}}}
        {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","mimeType":"image/png","data":"iVBORw0K"}}}}
        {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":"is 4."}}}
        {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"is 4."}}}}
        """
      Then the events are:
        """
        [{"kind": "text", "text": "The answer "}, {"kind": "text", "text": "is 4."}]
        """

      Examples:
        | backend    |
        | claude-acp |
        | codex-acp  |
        | gemini-acp |

    @req:BK-ACP.2
    Scenario Outline: A <backend> tool call begins with tool_call and ends with the update that completes or fails it
      A tool call is reported begun (`tool_call`: its title, its raw input) and then updated
      under the same toolCallId, as often as the agent likes; only the update whose status is
      `completed` or `failed` ends it, with the tool's raw output or, without one, its content.
      When the <backend> backend parses:
        """
        {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"ls","kind":"execute","status":"pending","rawInput":{"command":"ls"}}}}
        {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"in_progress"}}}
        {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","rawOutput":{"stdout":"a.py\n"},"content":[{"type":"content","content":{"type":"text","text":"a.py"}}]}}}
        {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_2","status":"failed","content":[{"type":"content","content":{"type":"text","text":"No such file"}}]}}}
        """
      Then the events are:
        """
        [{"kind": "tool_start", "tool_name": "ls", "tool_input": {"command": "ls"}, "tool_id": "call_1"},
         {"kind": "tool_result", "tool_output": {"stdout": "a.py\n"}, "tool_id": "call_1"},
         {"kind": "tool_result", "tool_output": [{"type": "content", "content": {"type": "text", "text": "No such file"}}], "tool_id": "call_2"}]
        """

      Examples:
        | backend    |
        | claude-acp |
        | codex-acp  |
        | gemini-acp |

    @req:BK-ACP.3
    Scenario Outline: ACP messages that carry no event
      When the gemini-acp backend parses:
        """
        <line>
        """
      Then there are no events

      Examples:
        | line |
        | {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"Reading the question."}}}} |
        | {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"What is 2 + 2?"}}}} |
        | {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"Read the code","priority":"medium","status":"pending"}]}}} |
        | {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":"agent_message_chunk"}} |
        | {"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}} |
        | {"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"call_1"},"options":[]}} |
        | not-json-line |


  Rule: Every event carries the line it came from
    Decision D-2: each event's `raw` is the line it came from, parsed, whatever its kind: a
    caller that needs what the normalized event leaves out (a turn's token usage, its cost,
    a tool's exit code) reads it there. Here a line of each CLI that gives an event of a kind
    an implementation may build without looking at its line (codex's `turn.completed`, a
    done event with no text), and one that gives several events.

    @req:BK-EV.1
    Scenario Outline: Each event of a <backend> line carries that line as raw
      When the <backend> backend parses:
        """
        <line>
        """
      Then each event carries the line it came from as raw

      Examples:
        | backend | line |
        | claude  | {"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_A","name":"Read","input":{"file_path":"a.py"}}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u2"} |
        | codex   | {"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}} |
        | gemini  | {"type":"init","session_id":"84e7ad51-868c-4132-a464-836c568068dd","model":"gemini-2.5-flash"} |
        | gemini-acp | {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","rawOutput":{"stdout":"a.py"}}}} |

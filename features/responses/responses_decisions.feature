Feature: Responses: real response objects, refusals, truncation and invalid payloads
  Seed 003's plan shows simplified objects. The real API returns richer ones, and a parser
  meets payloads that are no response at all. Decision D-8 of the design: accept the content
  type "output_text" (what the real API returns) as well as "text" (what the seed shows), and
  give refusals, "status": "incomplete" and non-object input a specified, tested behaviour.
  Each scenario states the decision it checks and why. Everything here is level SHOULD.

  Rule: Real-shaped objects are read as the seed's simplified ones

    @req:RESP-D8-output-text
    Scenario: A content part of type output_text is text
      Decision D-8: the real API writes assistant text as {"type": "output_text", "text": ...,
      "annotations": []}; a parser that accepts only the seed's "text" would read nothing
      from a real response.
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Hello", "annotations": []}
          ]}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "Hello"}]
        """

    @req:RESP-D8-real-shape
    Scenario: A complete real-shaped response is parsed, usage details included
      Decision D-8: ids like resp_, msg_, fc_; function calls that carry both id and call_id;
      usage with input_tokens_details.cached_tokens and output_tokens_details.reasoning_tokens.
      The token details are carried over under the chat-style names (prompt_tokens_details,
      completion_tokens_details) because callers use them to price cached and reasoning tokens.
      Given the Responses API object:
        """json
        {
          "id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
          "object": "response",
          "created_at": 1741476542,
          "status": "completed",
          "error": null,
          "incomplete_details": null,
          "model": "gpt-4.1-2025-04-14",
          "output": [
            {"type": "message", "id": "msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b",
             "status": "completed", "role": "assistant",
             "content": [{"type": "output_text", "text": "I will look up the weather.",
                          "annotations": []}]},
            {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz",
             "name": "get_weather", "arguments": "{\"location\":\"Paris, France\"}",
             "status": "completed"}
          ],
          "parallel_tool_calls": true,
          "store": true,
          "temperature": 1.0,
          "tool_choice": "auto",
          "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}],
          "top_p": 1.0,
          "usage": {
            "input_tokens": 36,
            "input_tokens_details": {"cached_tokens": 12},
            "output_tokens": 87,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 123
          },
          "user": null,
          "metadata": {}
        }
        """
      When the parser reads it
      Then the messages are:
        """json
        [
          {"role": "assistant", "content": "I will look up the weather."},
          {"role": "assistant", "content": "", "tool_calls": [{"id": "call_12345xyz",
            "type": "function", "function": {"name": "get_weather",
            "arguments": "{\"location\":\"Paris, France\"}"}}]},
          {"role": "assistant", "content": "", "usage": {
            "prompt_tokens": 36, "completion_tokens": 87, "total_tokens": 123,
            "prompt_tokens_details": {"cached_tokens": 12},
            "completion_tokens_details": {"reasoning_tokens": 0}}}
        ]
        """

    @req:RESP-D8-usage-counts
    Scenario: A token count that is no whole number of zero or more is given as 0
      Decision D-8: the API always sends whole numbers, but a proxy, a mock or a newer field
      can send something else. Usage only prices an answer that is otherwise fine, so a count
      that cannot be one is given as 0, the lowest count there is, rather than failing the
      parse or passing on a value (-1, true, "7") that breaks the caller's sums. A count of 0
      stays 0.
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "message", "content": [{"type": "output_text", "text": "Done"}]}
        ],
         "usage": {"input_tokens": -1, "output_tokens": "7", "total_tokens": true,
                   "input_tokens_details": {"cached_tokens": 2.5},
                   "output_tokens_details": {"reasoning_tokens": null}}}
        """
      When the parser reads it
      Then the messages are:
        """json
        [
          {"role": "assistant", "content": "Done"},
          {"role": "assistant", "content": "", "usage": {
            "prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0}}}
        ]
        """

    @req:RESP-D8-reasoning
    Scenario: Reasoning items give no message
      Decision D-8: a reasoning model puts a reasoning item (with a summary) before its answer.
      The seed's messages have no place for it, it is not the answer, and its cost already
      shows in completion_tokens_details.reasoning_tokens; so it is skipped like any other item
      without a message.
      Given the Responses API object:
        """json
        {"object": "response", "status": "completed", "output": [
          {"type": "reasoning", "id": "rs_6820f383d7c08191846711c5df8233bc",
           "summary": [{"type": "summary_text", "text": "The user wants a greeting."}]},
          {"type": "message", "id": "msg_6820f3846ad88191b9eb7f1a1d2a6a3b", "role": "assistant",
           "status": "completed",
           "content": [{"type": "output_text", "text": "Hi there!", "annotations": []}]}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "Hi there!"}]
        """

  Rule: Answers that are not plain text are told apart

    @req:RESP-D8-refusal
    Scenario: A refusal becomes a message whose refusal field holds the text
      Decision D-8: the real API reports a refusal as a content part {"type": "refusal",
      "refusal": TEXT}. It becomes {"role": "assistant", "content": "", "refusal": TEXT}, as
      chat completions report refusals: a caller that shows content never presents a refusal
      as the model's answer, and one that checks refusal finds it.
      Given the Responses API object:
        """json
        {"object": "response", "status": "completed", "output": [
          {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
           "content": [{"type": "refusal", "refusal": "I can't help with that."}]}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "", "refusal": "I can't help with that."}]
        """

    @req:RESP-D8-refusal
    Scenario: Only a refusal part with its text is a refusal
      A part is read by its type: a refusal part whose refusal is not text says nothing a
      caller could show, and a part of another type is no refusal whatever fields it has. Both
      give no message. Found by mutation testing (docs/mutation.md): the reference read
      either as a refusal, and every scenario passed.
      Given the Responses API object:
        """json
        {"object": "response", "status": "completed", "output": [
          {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
           "content": [{"type": "refusal", "refusal": null},
                       {"type": "output_audio", "refusal": "not a refusal"}]}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        []
        """

    @req:RESP-D8-incomplete
    Scenario: A truncated response keeps its partial output and says why it stopped
      Decision D-8: with "status": "incomplete" the model was cut off (max_output_tokens,
      content_filter). The partial output is real output and is kept; after it comes
      {"role": "assistant", "content": "", "incomplete": {"reason": REASON}}, so a caller can
      tell a cut-off answer from a finished one; the usage message stays last (REQ-001.4).
      Given the Responses API object:
        """json
        {"object": "response", "status": "incomplete",
         "incomplete_details": {"reason": "max_output_tokens"},
         "output": [{"type": "message", "id": "msg_1", "role": "assistant",
                     "status": "incomplete",
                     "content": [{"type": "output_text", "text": "The first part of",
                                  "annotations": []}]}],
         "usage": {"input_tokens": 10, "output_tokens": 16, "total_tokens": 26}}
        """
      When the parser reads it
      Then the messages are:
        """json
        [
          {"role": "assistant", "content": "The first part of"},
          {"role": "assistant", "content": "", "incomplete": {"reason": "max_output_tokens"}},
          {"role": "assistant", "content": "",
           "usage": {"prompt_tokens": 10, "completion_tokens": 16, "total_tokens": 26}}
        ]
        """

    @req:RESP-D8-empty-text
    Scenario: A text part with an empty string gives no message
      Decision D-8: an empty text carries nothing, and an empty assistant message would show
      as an empty bubble; seed 003's test 9 already emits nothing for empty content. Text made
      only of whitespace is not empty and is kept as it is.
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "message", "content": [
            {"type": "output_text", "text": ""},
            {"type": "output_text", "text": " "},
            {"type": "output_text", "text": "Hi"}
          ]}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": " "}, {"role": "assistant", "content": "Hi"}]
        """

    @req:RESP-D8-call-guard
    Scenario: A function call without a name, arguments or any id is ignored
      Decision D-8, the type guard of seed 003's test 10 applied to function calls: a call
      without a string name or string arguments cannot be run, and one without a non-empty
      call_id or id cannot be answered (a tool result must quote the id).
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "function_call", "call_id": "call_1", "arguments": "{}"},
          {"type": "function_call", "call_id": "call_2", "name": "f", "arguments": {"a": 1}},
          {"type": "function_call", "name": "f", "arguments": "{}"},
          {"type": "function_call", "call_id": "", "id": "", "name": "f", "arguments": "{}"},
          {"type": "function_call", "call_id": "call_5", "name": "f", "arguments": "{}"}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "", "tool_calls": [{"id": "call_5", "type": "function",
          "function": {"name": "f", "arguments": "{}"}}]}]
        """

  Rule: A payload that is not a usable response is rejected with one documented error
    The parser raises one error class for invalid input and nothing else; the error names the
    JSON path of the value that makes the payload unreadable. Skipping such a payload quietly
    would turn an API error, or a call to the wrong endpoint, into an empty answer.

    @req:RESP-D8-failed
    Scenario: A failed response is rejected with the API's error
      Decision D-8: "status": "failed" comes with an error object and no answer to read.
      Given the Responses API object:
        """json
        {"id": "resp_1", "object": "response", "status": "failed", "output": [],
         "error": {"code": "server_error", "message": "The server had an error."}}
        """
      When the parser reads it
      Then the parser rejects it at "$.error"
      And the error message contains "server_error"
      And the error message contains "The server had an error."

    @req:RESP-D8-not-a-response
    Scenario: A chat completion object is not a response
      Decision D-8: a payload from another endpoint is an error, not an empty answer.
      Given the Responses API object:
        """json
        {"id": "chatcmpl-1", "object": "chat.completion", "choices": [
          {"index": 0, "message": {"role": "assistant", "content": "Hi"},
           "finish_reason": "stop"}
        ]}
        """
      When the parser reads it
      Then the parser rejects it at "$.object"
      And the error message contains "chat.completion"

    @req:RESP-D8-not-a-response
    Scenario: An error envelope is not a response
      Decision D-8: the body of a failed HTTP call ({"error": {...}}) has no object field.
      Given the Responses API object:
        """json
        {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                   "code": "invalid_api_key"}}
        """
      When the parser reads it
      Then the parser rejects it at "$.object"

    @req:RESP-D8-non-object
    Scenario Outline: A payload that is not a JSON object is rejected
      Decision D-8: null, arrays, strings, numbers and booleans are no response object; the
      error says what was received.
      Given the JSON payload <payload>
      When the parser reads it
      Then the parser rejects it at "$"
      And the error message contains "<kind>"

      Examples:
        | payload    | kind      |
        | null       | null      |
        | []         | an array  |
        | "response" | a string  |
        | 42         | a number  |
        | true       | a boolean |

  Rule: Parsing never changes its input

    @req:RESP-D8-immutable
    Scenario: The response object is unchanged after parsing
      Decision D-8: callers keep the raw response (for logs, retries, caching); a parser that
      moved or rewrote fields in place would corrupt it. Over the adapter protocol the payload
      travels as a copy, so only an implementation run in-process can fail this scenario.
      Given the Responses API object:
        """json
        {"id": "resp_1", "object": "response", "status": "incomplete",
         "incomplete_details": {"reason": "content_filter"},
         "output": [
           {"type": "reasoning", "id": "rs_1", "summary": []},
           {"type": "message", "id": "msg_1", "role": "assistant",
            "content": [{"type": "output_text", "text": "Hi", "annotations": []},
                        {"type": "refusal", "refusal": "No."}]},
           {"type": "function_call", "id": "fc_1", "name": "f", "arguments": "{}"}
         ],
         "usage": {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0},
                   "output_tokens": 2, "output_tokens_details": {"reasoning_tokens": 1},
                   "total_tokens": 3}}
        """
      When the parser reads it
      Then the payload is unchanged

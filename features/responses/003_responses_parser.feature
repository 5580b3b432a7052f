Feature: Responses: a non-streaming OpenAI Responses API object becomes messages
  A client of the OpenAI /v1/responses endpoint turns the response object it gets back into
  the chat-style messages the rest of the program speaks. This feature is seed 003 ("REQ-001
  Non-Streaming Responses Parser"): one scenario per behavioural test of its plan, each
  naming the test and quoting the sentence it checks. The seed's tests assert that the
  emitted messages "strictly equal" the expected ones, so every scenario states the exact
  list of messages.

  The message shapes. Text is {"role": "assistant", "content": TEXT}. A function call is
  {"role": "assistant", "content": "", "tool_calls": [CALL]} with CALL
  {"id": ID, "type": "function", "function": {"name": NAME, "arguments": ARGUMENTS}}, as the
  seed's test 3 writes it. Usage is {"role": "assistant", "content": "", "usage": USAGE}; the
  seed says only that the final message "has usage", so the role and the empty content are
  our choice, made to match the function-call message.

  The seed's plan writes content parts as type "text"; the real API writes "output_text"
  (decision D-8). Both are accepted; these scenarios use the seed's "text", and
  responses_decisions.feature shows "output_text" and real-shaped objects.

  Rule: REQ-001.1 and REQ-001.2: every text part of a message item becomes one assistant message

    @req:RESP-001.1-a @req:RESP-001.2-a
    Scenario: A response with a single text item becomes one assistant message
      Seed 003, test 1 (REQ-001.1, REQ-001.2): "@given response.object == 'response' and
      output: [{type:'message', content:[{type:'text', text:'Hello'}]}] ... @then emits
      [ { role:'assistant', content:'Hello' } ]".
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "message", "content": [{"type": "text", "text": "Hello"}]}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "Hello"}]
        """

    @req:RESP-001.2-b
    Scenario: Several text segments of one message stay separate and in order
      Seed 003, test 2 (REQ-001.2): "Input: output: [message: content: [text:'A', text:'B']]
      - Expect: emits two assistant messages ['A','B'] in order".
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "message", "content": [
            {"type": "text", "text": "A"},
            {"type": "text", "text": "B"}
          ]}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "A"}, {"role": "assistant", "content": "B"}]
        """

    @req:RESP-001.2-c
    Scenario: Interleaved message and function_call items keep their order
      Seed 003, test 5 (REQ-001.2, EC3): "Interleaved message and function_call items
      preserve order". Each output item gives its own messages, in the order of the items.
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "message", "content": [{"type": "text", "text": "Let me check."}]},
          {"type": "function_call", "name": "get_weather", "call_id": "call_1",
           "arguments": "{\"city\":\"SF\"}"},
          {"type": "message", "content": [{"type": "text", "text": "And Paris."}]},
          {"type": "function_call", "name": "get_weather", "call_id": "call_2",
           "arguments": "{\"city\":\"Paris\"}"}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [
          {"role": "assistant", "content": "Let me check."},
          {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"SF\"}"}}]},
          {"role": "assistant", "content": "And Paris."},
          {"role": "assistant", "content": "", "tool_calls": [{"id": "call_2", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]}
        ]
        """

  Rule: REQ-001.3: a function_call item becomes an assistant message with one tool call

    @req:RESP-001.3-a
    Scenario: A function call with a call_id maps onto tool_calls
      Seed 003, test 3 (REQ-001.3): "Input: output: [{type:'function_call', name:'get_weather',
      call_id:'call_1', arguments:'{"city":"SF"}'}] - Expect: [{ role:'assistant', content:'',
      tool_calls:[{ id:'call_1', type:'function', function:{ name:'get_weather',
      arguments:'{"city":"SF"}'}}]}]". The arguments stay the JSON string they were.
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "function_call", "name": "get_weather", "call_id": "call_1",
           "arguments": "{\"city\":\"SF\"}"}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": "{\"city\":\"SF\"}"}}]}]
        """

    @req:RESP-001.3-b
    Scenario: A function call without call_id falls back to the item id
      Seed 003, test 4 (REQ-001.3, EC2): "Function call mapping without call_id, fallback to
      item.id".
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "function_call", "id": "fc_1", "name": "get_weather",
           "arguments": "{\"city\":\"SF\"}"}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "", "tool_calls": [{"id": "fc_1", "type": "function",
          "function": {"name": "get_weather", "arguments": "{\"city\":\"SF\"}"}}]}]
        """

    @req:RESP-001.3-b
    Scenario: The call_id wins over the item id when both are present
      Seed 003, test 4 (REQ-001.3, EC2): the item id is a fallback, used only without a
      call_id. The real API sends both, and the call_id is the key a tool result must quote.
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
           "arguments": "{}"}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": "{}"}}]}]
        """

  Rule: REQ-001.4: usage is mapped onto a final message

    @req:RESP-001.4-a
    Scenario: Usage is appended as the final message
      Seed 003, test 7 (REQ-001.4): "Input usage: { input_tokens:5, output_tokens:7,
      total_tokens:12 } - Expect final emitted message has usage: { prompt_tokens:5,
      completion_tokens:7, total_tokens:12 }".
      Given the Responses API object:
        """json
        {"object": "response",
         "output": [{"type": "message", "content": [{"type": "text", "text": "Hi"}]}],
         "usage": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}}
        """
      When the parser reads it
      Then the messages are:
        """json
        [
          {"role": "assistant", "content": "Hi"},
          {"role": "assistant", "content": "",
           "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}
        ]
        """

    @req:RESP-001.4-b
    Scenario: Empty output with usage emits only the usage message
      Seed 003, test 6 (REQ-001.4, EC1): "Empty output but usage present → only usage message
      emitted".
      Given the Responses API object:
        """json
        {"object": "response", "output": [],
         "usage": {"input_tokens": 3, "output_tokens": 0, "total_tokens": 3}}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "",
          "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3}}]
        """

  Rule: Edge cases: what the parser does not understand, it skips without failing

    @req:RESP-EC-a
    Scenario: Unknown item types are ignored
      Seed 003, test 8 (EC unknown): "Unknown item types are ignored (forward compatibility)".
      The real API has many item types this parser has no message for (web_search_call,
      file_search_call, computer_call, image_generation_call, ...).
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "web_search_call", "id": "ws_1", "status": "completed"},
          {"type": "message", "content": [{"type": "text", "text": "Found it."}]},
          {"type": "some_future_item", "payload": {"anything": [1, 2, 3]}}
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "Found it."}]
        """

    @req:RESP-EC-b
    Scenario: A message item without content emits nothing
      Seed 003, test 9 (EC): "Robustness: Missing message.content or empty arrays (still no
      throw, no emissions)".
      Given the Responses API object:
        """json
        {"object": "response", "output": [{"type": "message", "role": "assistant"}]}
        """
      When the parser reads it
      Then the messages are:
        """json
        []
        """

    @req:RESP-EC-b
    Scenario: A message item with an empty content array emits nothing
      Seed 003, test 9 (EC): "Missing message.content or empty arrays (still no throw, no
      emissions)".
      Given the Responses API object:
        """json
        {"object": "response", "output": [{"type": "message", "content": []}]}
        """
      When the parser reads it
      Then the messages are:
        """json
        []
        """

    @req:RESP-EC-b
    Scenario: An empty output array without usage emits nothing
      Seed 003, test 9 (EC): "... or empty arrays (still no throw, no emissions)".
      Given the Responses API object:
        """json
        {"object": "response", "output": []}
        """
      When the parser reads it
      Then the messages are:
        """json
        []
        """

    @req:RESP-EC-b
    Scenario: A response without an output field emits nothing
      Seed 003, test 9 (EC): "Missing ... (still no throw, no emissions)". Our reading: a
      missing output, or one that is not an array, is no output at all.
      Given the Responses API object:
        """json
        {"object": "response", "status": "completed"}
        """
      When the parser reads it
      Then the messages are:
        """json
        []
        """

    @req:RESP-EC-c
    Scenario: Text fields that are not strings are ignored
      Seed 003, test 10 (EC): "Non-string text fields ignored safely (type-guard behavior)".
      Only the part whose text is a string becomes a message; so do parts and items that are
      not objects at all.
      Given the Responses API object:
        """json
        {"object": "response", "output": [
          {"type": "message", "content": [
            {"type": "text", "text": 42},
            {"type": "text", "text": null},
            {"type": "text", "text": ["A"]},
            {"type": "text"},
            "text",
            {"type": "text", "text": "kept"}
          ]},
          "message",
          null
        ]}
        """
      When the parser reads it
      Then the messages are:
        """json
        [{"role": "assistant", "content": "kept"}]
        """

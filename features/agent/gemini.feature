# Hand-written: the seed scenarios that only Claude or Codex can show (RP-1.1/1.2, RP-2.2/2.3,
# RP-4.1/4.2), as the Gemini CLI shows them (features/agent/requirements.yaml AG-GM.*).
Feature: The Gemini backend: what the seeds ask of Claude and Codex, for the third CLI
  Seed 000 names the Claude and Codex CLIs where a behaviour shows in a CLI's own lines: a
  simple answer, a turn whose end carries no text, the session id of the init line. The
  Gemini CLI (`gemini --output-format stream-json`, docs/new-backend.md) has its own lines:
  an `init` line with the session id, then the user's prompt echoed back as a `message` with
  role "user", the answer as `message` chunks with role "assistant", and a `result` that
  carries statistics but no text. These scenarios ask of a Gemini agent what the seed asks of
  the other two; they are not applicable to an implementation that does not declare gemini.
  The echoed prompt is the trap: it is the CLI repeating the request, never part of the
  answer.

  Rule: A simple answer is the model's text, never the echoed prompt (seed 000: "Simple text response")

    @req:AG-GM.1
    Scenario: Simple text response from the Gemini backend
      Given a CodingGenesisAgent with backend "gemini".
      Given the agent is in "READY" state.
      When the agent receives a request with message "What is 2 + 2?".
      Then a subprocess is spawned with the "gemini" command.
      Then the response contains key "message" with the final text.
      Then the response contains key "status" with value 0.
      Then the response contains key "backend" with value "gemini".

  Rule: The result carries no text: the answer is the assistant's chunks joined (seed 000: "Text Accumulation")

    @req:AG-GM.2
    Scenario: A Gemini result without text preserves the accumulated text
      Given a CodingGenesisAgent with backend "gemini".
      Given the subprocess emits 2 text events: "GENESIS_", "GEMINI_TEST_OK".
      Given the subprocess then emits a result event without text.
      When the agent processes the request.
      Then the response message is "GENESIS_GEMINI_TEST_OK".

  Rule: The session id is the init line's (seed 000: "Session ID Extraction")

    @req:AG-GM.3
    Scenario: Response includes the session_id of Gemini's init line
      Given a CodingGenesisAgent with backend "gemini".
      Given the subprocess emits an init event with session_id "84e7ad51-0000-4000-8000-00000000c0de".
      When the agent processes the request.
      Then the response contains key "session_id" with value "84e7ad51-0000-4000-8000-00000000c0de".

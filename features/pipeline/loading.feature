Feature: Pipeline contracts: safe loading and errors that point into the source
  Users run the validator in CI and as a pre-commit hook, on files an agent (often a model)
  wrote. It must never run what a file says, never blow up on a small hostile file, and say
  exactly where each problem is: line and column in the YAML, and the JSON path.

  Rule: Every error says where it is, and every error is reported

    @req:PL-3.1
    Scenario: Errors point at the line and column of the offending value
      Given a "test-reviewer" document:
        """yaml
        status: success
        data:
          tests_passed: "yes"
          violations:
            - rule: 5
              description: "Missing terminal branch context"
              location: spec/services/payment_spec.rb
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:17: $.data.tests_passed: 'yes' is not of type 'boolean'
        7:17: $.data.violations[0].location: does not match
        """

    @req:PL-3.1
    Scenario: An error of the whole document points at where its data begins
      A file an agent wrote often opens with a comment. An error that belongs to the document
      as a whole (a required key missing at its top) points at its first line of data, after
      the comment, as an error inside it points at its own line.
      Given a "test-reviewer" document:
        """yaml
        # written by the test-reviewer

        data:
          tests_passed: true
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:1: $: 'status' is a required property
        4:3: $.data: 'violations' is a required property
        """

    @req:PL-3.1
    Scenario Outline: A character YAML does not allow is an error where it is (<name>)
      YAML allows no control character but tab and the line breaks. A file that holds one (a
      terminal's colour code, a NUL from a broken write) is invalid, and the error points at
      that character's line and column, not at the start of the file. It names the character
      by its code point, since it cannot be shown.
      Given a "response" document with U+<code> in place of "@":
        """yaml
        status: success
        data:
          note: "a@b"
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:11: $: U+<code>
        """

      Examples:
        | name               | code |
        | a bell             | 0007 |
        | a NUL              | 0000 |
        | an escape          | 001B |
        | a delete           | 007F |

    @req:PL-3.1
    Scenario: An integer too long to read is read, or an error where it is, never a crash
      Whether an integer of 5,000 digits can be read is the implementation's language's
      business: Python reads at most 4,300 (a guard against a denial of service in the
      conversion), a big-integer library more. Either answer is right, as long as a refusal
      is an error at the integer's line and path, like any other, and the validator answers
      instead of crashing. Found by mutation testing (docs/mutation.md): a validator that let
      the conversion's error escape passed every scenario.
      Given a "response" document whose data is an integer of 5000 digits
      When it is validated
      Then it is valid, or invalid with one error, at "$.data", on line 2

    @req:PL-3.1
    Scenario: A lone surrogate is read as the protocol's parser gives it, or an error where it is, never a crash
      A lone surrogate (U+D800) is half of a UTF-16 pair, cut from its other half as a
      JavaScript, Java or C# string's slice can leave it: no character at all, and none that
      YAML allows. JSON carries one as an escape (`\ud800`), which is how the suite sends it.
      A validator that reads it refuses it as any character YAML does not allow, at its line;
      one whose JSON parser already put U+FFFD in its place was handed a valid document. Either
      answer is right; a crash is neither. Found by mutation testing (docs/mutation.md): a
      validator that let the encoding error escape passed every scenario, since none sent one.
      Given a "response" document with U+D800 in place of "@":
        """yaml
        status: success
        data:
          note: "a@b"
        """
      When it is validated
      Then it is valid, or invalid with one error, at "$", on line 3

  Rule: Only plain data is loaded
    A contract is data: maps, lists, strings, numbers, booleans, null. A tag that asks the
    loader to build something else is refused, not ignored: `!!python/object/apply` runs code
    in an unsafe loader, and a custom tag means the file was written for another tool.

    @req:PL-3.2
    Scenario Outline: The tag <tag> is refused
      Given a "response" document:
        """yaml
        status: success
        data: <tag> <value>
        """
      When it is validated
      Then it is invalid with these errors:
        """
        2:7: $.data: tag <tag> is not allowed
        """

      Examples:
        | tag                           | value       |
        | !!python/object/apply:os.system | ["true"]  |
        | !ruby/object:Payment          | {}          |
        | !!binary                      | aGVsbG8=    |
        | !!set                         | {a, b}      |

    @req:PL-3.2
    Scenario Outline: A tag of plain data on a node of another kind is refused (<tag> on <kind>)
      `!!str`, `!!seq` and `!!map` are plain data's own tags, each for one kind of node: a
      string is a scalar, a sequence a list, a map a mapping. Written on a node of another kind
      they ask for a string made of a list, or a list made of a mapping, which no plain
      reading gives: refused, naming the tag, as any tag that is not plain data. Found by
      mutation testing (docs/mutation.md): a loader that took a list tagged `!!str` for its
      raw nodes, and called the document valid, passed every scenario.
      Given a "response" document:
        """yaml
        status: success
        data: <tag> <value>
        """
      When it is validated
      Then it is invalid with these errors:
        """
        2:7: $.data: <tag>
        """

      Examples:
        | tag    | kind       | value    |
        | !!str  | a list     | [a, b]   |
        | !!str  | a mapping  | {a: 1}   |
        | !!seq  | a mapping  | {a: 1}   |
        | !!map  | a list     | [a, b]   |

    @req:PL-3.2
    Scenario: A date written without quotes is plain data: the text as written
      YAML 1.1 reads an unquoted `2024-05-01` as a timestamp, which JSON cannot hold; whoever
      writes a date in a contract means its text, so it is kept as written, neither refused
      as a tag nor turned into another value. Found by mutation testing (docs/mutation.md): a
      loader that refused every date passed every scenario before this one.
      Given a "response" document:
        """yaml
        status: skip
        skip_reason: 2024-05-01
        """
      When it is validated
      Then it is valid

    @req:PL-3.2
    Scenario: Merge keys are refused
      Given a "metadata" document:
        """yaml
        complexity: &base { zone: green, loc: 85, methods: 4 }
        automation:
          <<: *base
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:3: $.automation: merge keys (<<) are not allowed
        """

  Rule: Aliases cannot bomb
    Nine levels of nine aliases are a billion strings in a file of a few hundred bytes. Every
    use of an alias counts towards the node limit (100,000), so the bomb is refused early.

    @req:PL-3.3
    Scenario: A billion laughs is refused
      Given a "response" document:
        """yaml
        status: success
        data:
          a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
          b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
          c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
          d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
          e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
          f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
          g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
          h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
          i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
        """
      When it is validated
      Then it is invalid with one error, at "$.data", saying "expands to more than 100000 nodes"

    @req:PL-3.3
    Scenario: Every node counts, strings as much as lists: five levels are read, six are not
      Five levels of nine aliases expand to 66,430 lists and strings under `e` (about 75,000
      nodes in all): within the limit, read. A sixth level makes 597,871 under `f`, refused
      where it crosses the limit. Every string counts as a node, as every list and mapping
      does (a mapping's keys do not), and each counts once: 50,001 empty lists side by side
      are read, which counted twice would pass the limit; 100,001 are refused, where the list
      that holds them passes it: an empty list is a node too, and a list counts itself beside
      what it holds. Found by mutation testing (docs/mutation.md): counting strings twice or
      not at all, or lists twice, and a list that did not count itself or took what it holds
      away from its count, passed every scenario.
      Given a "response" document:
        """yaml
        status: success
        data:
          a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
          b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
          c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
          d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
          e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
        """
      When it is validated
      Then it is valid
      Given a "response" document:
        """yaml
        status: success
        data:
          a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
          b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
          c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
          d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
          e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
          f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
        """
      When it is validated
      Then it is invalid with one error, at "$.data.f", saying "expands to more than 100000 nodes"
      Given a "response" document holding 50001 lists side by side
      When it is validated
      Then it is valid
      Given a "response" document holding 100001 lists side by side
      When it is validated
      Then it is invalid with one error, at "$.data", saying "expands to more than 100000 nodes"

    @req:PL-3.3
    Scenario: An alias inside its own anchor is refused
      Given a "response" document:
        """yaml
        status: success
        data: &loop
          again: *loop
        """
      When it is validated
      Then it is invalid with these errors:
        """
        2:7: $.data.again: recursive alias
        """

  Rule: Size, emptiness, keys and syntax
    @req:PL-3.4
    Scenario: A document over the size limit is refused before it is parsed
      Given a "response" document of 2 MiB
      When it is validated
      Then it is invalid with one error, at "$", saying "over the limit of 1048576"

    @req:PL-3.4
    Scenario: A document of 1 MiB is read, and one byte more is refused at its start
      The limit is 1 MiB exactly (1,048,576 bytes of UTF-8). A document over it is refused as
      a whole, so its error points at its first line and column. Found by mutation testing
      (docs/mutation.md): a limit one byte short, or an error placed elsewhere, passed every
      scenario.
      Given a "response" document of exactly 1048576 bytes
      When it is validated
      Then it is valid
      Given a "response" document of exactly 1048577 bytes
      When it is validated
      Then it is invalid with these errors:
        """
        1:1: $: document is 1048577 bytes, over the limit of 1048576
        """

    @req:PL-3.4
    Scenario: A document nesting deeper than 64 levels is refused before it is composed
      A YAML composer recurses once per level: `[[[[...` a hundred thousand deep, 200 KB,
      overflows the stack of a validator that composes first and checks later (PyYAML 6.0.4
      and later refuse a thousand levels themselves). The error points at the first
      collection past the limit: the 65th list, in column 71 of `data: [[[...`. Found by
      mutation testing (docs/mutation.md): a check a level late, or none before composing
      (the composed document's own check then refuses it, elsewhere), passed every scenario.
      Given a "response" document nesting 100 lists
      When it is validated
      Then it is invalid with these errors:
        """
        2:71: $: document nests deeper than 64
        """

    @req:PL-3.4
    Scenario: A document nesting 64 levels, or holding many lists side by side, is read
      The limit is on depth, not on how many collections a document holds. The root
      collection is level 0 (its JSON path `$` has no step), so 64 lists nested under the root
      mapping are within it, and a hundred lists side by side are two levels deep; a list
      that closes gives back the one level it took, no more, so the 65th level after them is
      still refused where it opens; a value is no level. Found by mutation testing
      (docs/mutation.md): a limit one level short, a depth that never came back up, one that
      came back two levels, or a value counted as a level, passed every scenario.
      Given a "response" document nesting 64 lists
      When it is validated
      Then it is valid
      Given a "response" document nesting 64 lists around a value
      When it is validated
      Then it is valid
      Given a "response" document holding 100 lists side by side
      When it is validated
      Then it is valid
      Given a "response" document holding 100 lists side by side, then 63 nested
      When it is validated
      Then it is valid
      Given a "response" document holding 100 lists side by side, then 64 nested
      When it is validated
      Then it is invalid with these errors:
        """
        2:471: $: document nests deeper than 64
        """

    @req:PL-3.4
    Scenario: An alias nests as deep as what it stands for, and past 64 levels is refused where it is used
      Each line below is 8 lists around the one before it, so the document is written 10
      levels deep, yet `g` holds 56 lists one inside the other and `h` 64, under `data`: 65
      levels, one past the limit. The error is at the path where the limit is crossed (its
      line and column may be the alias's or its anchor's: the same node is written at one and
      used at the other). An empty list is a level as a list that holds a value is: the third
      document is the second with `[]` innermost. Found by mutation testing (docs/mutation.md):
      a loader that measured an alias's depth without the path it is used at, or an empty
      list as no level, passed every scenario.
      Given a "response" document:
        """yaml
        status: success
        data:
          a: &a [[[[[[[[1]]]]]]]]
          b: &b [[[[[[[[*a]]]]]]]]
          c: &c [[[[[[[[*b]]]]]]]]
          d: &d [[[[[[[[*c]]]]]]]]
          e: &e [[[[[[[[*d]]]]]]]]
          f: &f [[[[[[[[*e]]]]]]]]
          g: &g [[[[[[[[*f]]]]]]]]
        """
      When it is validated
      Then it is valid
      Given a "response" document:
        """yaml
        status: success
        data:
          a: &a [[[[[[[[1]]]]]]]]
          b: &b [[[[[[[[*a]]]]]]]]
          c: &c [[[[[[[[*b]]]]]]]]
          d: &d [[[[[[[[*c]]]]]]]]
          e: &e [[[[[[[[*d]]]]]]]]
          f: &f [[[[[[[[*e]]]]]]]]
          g: &g [[[[[[[[*f]]]]]]]]
          h: &h [[[[[[[[*g]]]]]]]]
        """
      When it is validated
      Then it is invalid with one error, at "$.data.h[0][0][0][0][0][0][0][0]", saying "document nests deeper than 64"
      Given a "response" document:
        """yaml
        status: success
        data:
          a: &a [[[[[[[[]]]]]]]]
          b: &b [[[[[[[[*a]]]]]]]]
          c: &c [[[[[[[[*b]]]]]]]]
          d: &d [[[[[[[[*c]]]]]]]]
          e: &e [[[[[[[[*d]]]]]]]]
          f: &f [[[[[[[[*e]]]]]]]]
          g: &g [[[[[[[[*f]]]]]]]]
          h: &h [[[[[[[[*g]]]]]]]]
        """
      When it is validated
      Then it is invalid with one error, at "$.data.h[0][0][0][0][0][0][0][0]", saying "document nests deeper than 64"

    @req:PL-3.4
    Scenario: Empty documents, invalid YAML and non-string keys are refused
      Given a "response" document:
        """yaml
        # nothing but a comment
        """
      When it is validated
      Then it is invalid with these errors:
        """
        1:1: $: document is empty
        """
      Given a "response" document:
        """yaml
        status: success
        data: [unclosed
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:1: $: YAML syntax error
        """
      Given a "metadata" document:
        """yaml
        automation:
          on: true
        """
      When it is validated
      Then it is invalid with these errors:
        """
        2:3: $.automation: key 'on' is not a string (quote it)
        """

  Rule: Duplicate keys
    The seed's full metadata file writes `source_file` and `class_name` twice, with the same
    values (discovery-agent and code-analyzer both write them): that is accepted. A key written
    twice with different values is refused: a YAML reader silently keeps one of them.

    @req:PL-3.5
    Scenario: A key repeated with another value is refused
      Given the seed's example "metadata.seed.yml"
      When it is validated
      Then it is valid
      Given a "metadata" document:
        """yaml
        source_file: app/services/payment_processor.rb
        slug: app_services_payment_processor
        source_file: app/services/payment.rb
        """
      When it is validated
      Then it is invalid with these errors:
        """
        3:1: $.source_file: duplicate key 'source_file' with a different value (first at line 1)
        """

  Rule: The contract is inferred when not named
    @req:PL-3.6
    Scenario Outline: A <kind> is checked as <contract>
      A document that is no mapping is checked as metadata, whatever it holds: only a mapping
      has a `status` to tell a response by. Found by mutation testing (docs/mutation.md): a
      validator that looked for `status` in a list, and crashed on one that named it, passed
      every scenario.
      Given a document:
        """yaml
        <document>
        """
      When it is validated without naming a contract
      Then the contract used is "<contract>"

      Examples:
        | kind                               | document                                             | contract         |
        | file without status                | automation: { discovery_agent_completed: true }      | metadata         |
        | list, even one that names status   | [status, error]                                      | metadata         |
        | error response                     | { status: error, error: "boom" }                     | error            |
        | stop                               | { status: stop, reason: user_cancelled }             | discovery-agent  |
        | response with a behavior bank      | { status: success, data: { behaviors: [] } }         | code-analyzer    |
        | response with factories            | { status: success, data: { factories: [] } }         | factory-agent    |
        | response with files_created        | { status: success, data: { files_created: [] } }     | test-implementer |
        | response with tests_passed         | { status: success, data: { tests_passed: true } }    | test-reviewer    |
        | response with a spec file          | { status: success, spec_file: spec/a_spec.rb }       | test-architect   |
        | response with nothing else         | { status: skip, skip_reason: "nothing to do" }       | response         |
